package io.standby.testing;

import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Every command a client sent, as the driver put it on the wire: for tests that check what the code asks of the
 * database (read concern, read preference, write concern), not what it meant to ask.
 */
public final class CommandLog implements CommandListener {

    /** URI options that ask for weaker reads and writes than the protocol needs. */
    public static final String LOOSE_OPTIONS = "readPreference=secondaryPreferred&readConcernLevel=local&w=1";

    private static final Set<String> READS = Set.of("find", "aggregate", "count", "distinct");
    private static final Set<String> WRITES = Set.of("insert", "update", "delete", "findAndModify");

    private final List<BsonDocument> started = new CopyOnWriteArrayList<>();

    @Override
    public void commandStarted(CommandStartedEvent event) {
        started.add(event.getCommand().clone());
    }

    /** {@code uri} with more options appended. */
    public static String withOptions(String uri, String options) {
        if (uri.contains("?")) {
            return uri + "&" + options;
        }
        return uri + (uri.replaceFirst("^mongodb(\\+srv)?://", "").contains("/") ? "?" : "/?") + options;
    }

    /** Every command with a collection for its target, in the order sent: {@code "update owners"}, for example. */
    public List<String> sequence() {
        return started.stream()
                .filter(c ->
                        c.get(c.getFirstKey()) != null && c.get(c.getFirstKey()).isString())
                .map(c -> c.getFirstKey() + " "
                        + c.get(c.getFirstKey()).asString().getValue())
                .toList();
    }

    /** The commands whose target is {@code collection}, e.g. {@code find: "slots"}. */
    public List<BsonDocument> on(String collection) {
        return started.stream()
                .filter(c -> {
                    BsonValue target = c.get(c.getFirstKey());
                    return target != null
                            && target.isString()
                            && target.asString().getValue().equals(collection);
                })
                .toList();
    }

    /**
     * Every read of {@code collection} asked for read concern {@code majority} and the primary; every write waited for
     * a majority. Returns how many commands were checked.
     */
    public int assertSafe(String collection) {
        int checked = 0;
        for (BsonDocument command : on(collection)) {
            String name = command.getFirstKey();
            if (READS.contains(name)) {
                String concern = command.containsKey("readConcern")
                        ? command.getDocument("readConcern").getString("level").getValue()
                        : "none";
                require("majority".equals(concern), "read without read concern majority", command);
                // The driver leaves $readPreference out for the primary.
                require(
                        !command.containsKey("$readPreference")
                                || command.getDocument("$readPreference")
                                        .getString("mode")
                                        .getValue()
                                        .equals("primary"),
                        "read not pinned to the primary",
                        command);
                checked++;
            } else if (WRITES.contains(name)) {
                BsonValue w = command.containsKey("writeConcern")
                        ? command.getDocument("writeConcern").get("w")
                        : null;
                require(
                        w != null && w.isString() && w.asString().getValue().equals("majority"),
                        "write without write concern majority",
                        command);
                checked++;
            }
        }
        return checked;
    }

    private static void require(boolean condition, String problem, BsonDocument command) {
        if (!condition) {
            throw new AssertionError(problem + ": " + command.toJson());
        }
    }
}
