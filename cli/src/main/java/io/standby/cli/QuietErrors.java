package io.standby.cli;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.exception.MongoServerException;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded server's answer to a command it refuses. mongo-java-server's wire handler logs every refusal as an ERROR
 * with a stack trace: mongosh alone asks for {@code atlasVersion} and {@code getParameter} at every connect, and a
 * client is told of its error anyway. The backends answer with the same error document themselves, after one DEBUG
 * line.
 */
final class QuietErrors {

    private static final Logger log = LoggerFactory.getLogger(MongoCommand.class);

    private QuietErrors() {}

    static Document handle(MongoMessage message, Function<MongoMessage, Document> handler) {
        try {
            return handler.apply(message);
        } catch (MongoServerException e) {
            log.debug(
                    "Refused {}: {}",
                    message.getDocument().keySet().stream().findFirst().orElse("a message"),
                    e.getMessageWithoutErrorCode());
            return reply(e);
        }
    }

    /** What the wire handler would have sent: {@code {$err, errmsg, code, codeName, ok: 0}}. */
    static Document reply(MongoServerException e) {
        Document reply = new Document();
        reply.put("$err", e.getMessageWithoutErrorCode());
        reply.put("errmsg", e.getMessageWithoutErrorCode());
        if (e instanceof MongoServerError error) {
            reply.put("code", error.getCode());
            reply.putIfNotNull("codeName", error.getCodeName());
        }
        reply.put("ok", 0);
        return reply;
    }
}
