package io.standby.robot.internal;

import com.mongodb.MongoServerException;
import java.util.Set;

/** What a failed change stream means for the next attempt, by the server's error code. */
enum ChangeStreamFailure {

    /** This deployment has no change streams: do not ask again. */
    UNSUPPORTED,
    /** The resume point is gone (the oplog rolled past it, or it cannot be resumed from): start afresh. */
    RESUME_POINT_LOST,
    /** Anything else (an election, a network error, a timeout): try again later from the same point. */
    TRANSIENT;

    /**
     * 40573: "$changeStream is only supported on replica sets"; 40324: unknown pipeline stage (a server older than 3.6,
     * or not MongoDB); 59 CommandNotFound and 115 CommandNotSupported; 376 ChangeStreamNotEnabled.
     */
    private static final Set<Integer> UNSUPPORTED_CODES = Set.of(40573, 40324, 59, 115, 376);
    /**
     * 286 ChangeStreamHistoryLost and 136 CappedPositionLost: the oplog no longer reaches back to the token; 280
     * ChangeStreamFatalError: for example the token's event was not found; 260 InvalidResumeToken: for example a token
     * of an invalidate event.
     */
    private static final Set<Integer> RESUME_POINT_LOST_CODES = Set.of(286, 136, 280, 260);

    static ChangeStreamFailure of(RuntimeException e) {
        if (e instanceof MongoServerException server) {
            if (UNSUPPORTED_CODES.contains(server.getCode())) {
                return UNSUPPORTED;
            }
            if (RESUME_POINT_LOST_CODES.contains(server.getCode())) {
                return RESUME_POINT_LOST;
            }
        }
        return TRANSIENT;
    }
}
