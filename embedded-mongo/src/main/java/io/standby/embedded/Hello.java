package io.standby.embedded;

import de.bwaldvogel.mongo.bson.Document;
import java.util.function.Supplier;

/**
 * The {@code hello} command for mongo-java-server, which knows it only by its old name {@code isMaster}. MongoDB has
 * answered both since 4.4.2, and a node reads the server's clock ({@code localTime}) from it to stamp its events.
 */
public final class Hello {

    private Hello() {}

    public static boolean appliesTo(String command) {
        return command.equals("hello");
    }

    /** {@code isMaster}'s reply, with {@code hello}'s name for the one field the two name differently. */
    public static Document answer(Supplier<Document> isMaster) {
        Document reply = isMaster.get();
        reply.put("isWritablePrimary", reply.remove("ismaster"));
        return reply;
    }
}
