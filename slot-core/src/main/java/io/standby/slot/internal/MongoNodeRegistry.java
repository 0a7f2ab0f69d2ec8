package io.standby.slot.internal;

import static io.standby.slot.NodeFields.DRAIN;
import static io.standby.slot.NodeFields.HELD;
import static io.standby.slot.NodeFields.HOST;
import static io.standby.slot.NodeFields.ID;
import static io.standby.slot.NodeFields.INSTANCE;
import static io.standby.slot.NodeFields.INTERVAL;
import static io.standby.slot.NodeFields.IP;
import static io.standby.slot.NodeFields.LOAD;
import static io.standby.slot.NodeFields.LOAD_CPU;
import static io.standby.slot.NodeFields.LOAD_MEMORY;
import static io.standby.slot.NodeFields.LOAD_SCORE;
import static io.standby.slot.NodeFields.MAX_SLOTS;
import static io.standby.slot.NodeFields.PORT;
import static io.standby.slot.NodeFields.ROBOTS;
import static io.standby.slot.NodeFields.ROBOTS_FAILED;
import static io.standby.slot.NodeFields.ROBOTS_RUNNING;
import static io.standby.slot.NodeFields.SLOTS;
import static io.standby.slot.NodeFields.STARTED;
import static io.standby.slot.NodeFields.STATE;
import static io.standby.slot.NodeFields.TIME;
import static io.standby.slot.NodeFields.TYPES;
import static io.standby.slot.NodeFields.VERSION;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Field;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import io.standby.slot.NodeFields;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.NodeView;
import io.standby.slot.StandbyDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The nodes registry on MongoDB, through the driver: {@code {_id: "ip:port", ip, port, instance, host, state, slots,
 * maxSlots, robots: {running, failed}, load: {cpu, memory, score}, version, interval, started, time, drain}}, stamped
 * with the server's clock. A document that is not well-formed is skipped.
 */
public final class MongoNodeRegistry implements NodeRegistry {

    public static final String COLLECTION = NodeFields.COLLECTION;
    private static final String SERVER_NOW = "serverNow";

    private final MongoCollection<Document> nodes;

    public MongoNodeRegistry(MongoDatabase database) {
        this.nodes = StandbyDatabase.safe(database.getCollection(COLLECTION));
    }

    @Override
    public boolean write(NodeRecord node, Write write) {
        List<Bson> updates = new ArrayList<>(List.of(
                Updates.set(IP, node.node().ip()),
                Updates.set(PORT, node.node().port()),
                Updates.set(INSTANCE, node.instance()),
                Updates.set(HOST, node.host()),
                Updates.set(STATE, node.state().name()),
                Updates.set(SLOTS, node.slots()),
                // How many, for the claim plans, which read it without the list.
                Updates.set(HELD, node.slots().size()),
                Updates.set(MAX_SLOTS, node.maxSlots()),
                Updates.set(
                        ROBOTS,
                        new Document(ROBOTS_RUNNING, node.robotsRunning()).append(ROBOTS_FAILED, node.robotsFailed())),
                Updates.set(
                        LOAD,
                        new Document(LOAD_CPU, round(node.cpu()))
                                .append(LOAD_MEMORY, round(node.memory()))
                                .append(LOAD_SCORE, node.load())),
                Updates.set(VERSION, node.version()),
                Updates.set(INTERVAL, node.interval().toMillis()),
                Updates.set(TYPES, node.types()),
                Updates.currentDate(TIME)));
        if (write == Write.FIRST) {
            // A new process: its own start, and no drain request meant for the process before it.
            updates.add(Updates.currentDate(STARTED));
            updates.add(Updates.unset(DRAIN));
        }
        Document after = nodes.findOneAndUpdate(
                Filters.eq(ID, node.node().toString()),
                Updates.combine(updates),
                new FindOneAndUpdateOptions()
                        .upsert(true)
                        .returnDocument(ReturnDocument.AFTER)
                        .projection(Projections.include(DRAIN)));
        return after != null && after.get(DRAIN) != null;
    }

    private static double round(double fraction) {
        return Math.round(fraction * 100) / 100.0;
    }

    @Override
    public void remove(NodeId node, String instance) {
        nodes.deleteOne(Filters.and(Filters.eq(ID, node.toString()), Filters.eq(INSTANCE, instance)));
    }

    @Override
    public List<NodeView> readAll() {
        List<NodeView> views = new ArrayList<>();
        for (Document doc : nodes.aggregate(List.of(Aggregates.addFields(new Field<>(SERVER_NOW, "$$NOW"))))
                .batchSize(MongoSlotStore.ONE_BATCH)) {
            NodeView view = parse(doc);
            if (view != null) {
                views.add(view);
            }
        }
        views.sort(Comparator.comparing(v -> v.id().toString()));
        return views;
    }

    /**
     * The live nodes, filtered by the server's clock on the server, and of each only its address, load score and
     * maximum slots: a find without {@code $$NOW} in the reply, cheaper than {@link #readAll()}.
     */
    @Override
    public List<ClaimPlan.Member> readLive() {
        Bson live = Filters.and(
                Filters.ne(STATE, NodeState.DRAINING.name()),
                Filters.exists(DRAIN, false),
                Filters.expr(new Document(
                        "$lte",
                        List.of(
                                new Document("$subtract", List.of("$$NOW", "$" + TIME)),
                                new Document("$multiply", List.of("$" + INTERVAL, 3))))));
        List<ClaimPlan.Member> members = new ArrayList<>();
        for (Document doc : nodes.find(live)
                .projection(Projections.include(IP, PORT, MAX_SLOTS, LOAD + "." + LOAD_SCORE, HELD))
                .batchSize(MongoSlotStore.ONE_BATCH)) {
            try {
                members.add(new ClaimPlan.Member(
                        new NodeId(doc.getString(IP), ((Number) doc.get(PORT)).intValue()),
                        number(doc.get(LOAD, new Document()).get(LOAD_SCORE)),
                        ((Number) doc.get(MAX_SLOTS)).intValue(),
                        number(doc.get(HELD))));
            } catch (RuntimeException e) {
                // Not well-formed: not a member.
            }
        }
        return members;
    }

    private static NodeView parse(Document doc) {
        try {
            NodeId id = new NodeId(doc.getString(IP), ((Number) doc.get(PORT)).intValue());
            Instant time = doc.getDate(TIME).toInstant();
            Instant now = doc.getDate(SERVER_NOW).toInstant();
            Document robots = doc.get(ROBOTS, new Document());
            Document load = doc.get(LOAD, new Document());
            return new NodeView(
                    id,
                    doc.getString(INSTANCE),
                    doc.getString(HOST),
                    NodeState.valueOf(doc.getString(STATE)),
                    doc.getList(SLOTS, String.class, List.of()),
                    ((Number) doc.get(MAX_SLOTS)).intValue(),
                    number(robots.get(ROBOTS_RUNNING)),
                    number(robots.get(ROBOTS_FAILED)),
                    decimal(load.get(LOAD_CPU)),
                    decimal(load.get(LOAD_MEMORY)),
                    number(load.get(LOAD_SCORE)),
                    doc.getString(VERSION),
                    Duration.ofMillis(number(doc.get(INTERVAL))),
                    doc.get(STARTED) instanceof Date started ? started.toInstant() : null,
                    time,
                    Duration.between(time, now),
                    doc.get(DRAIN) != null,
                    doc.getList(TYPES, String.class, List.of()));
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static int number(Object value) {
        return value instanceof Number n ? n.intValue() : 0;
    }

    private static double decimal(Object value) {
        return value instanceof Number n ? n.doubleValue() : 0;
    }

    @Override
    public long sweep(Duration olderThan) {
        return nodes.deleteMany(ServerAge.olderThan(TIME, olderThan)).getDeletedCount();
    }

    @Override
    public boolean requestDrain(NodeId node) {
        return nodes.updateOne(Filters.eq(ID, node.toString()), Updates.currentDate(DRAIN))
                        .getMatchedCount()
                == 1;
    }
}
