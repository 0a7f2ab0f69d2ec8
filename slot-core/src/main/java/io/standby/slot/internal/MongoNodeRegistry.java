package io.standby.slot.internal;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Field;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
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

    public static final String COLLECTION = "nodes";
    private static final String SERVER_NOW = "serverNow";

    private final MongoCollection<Document> nodes;

    public MongoNodeRegistry(MongoDatabase database) {
        this.nodes = StandbyDatabase.safe(database.getCollection(COLLECTION));
    }

    @Override
    public boolean write(NodeRecord node, Write write) {
        List<Bson> updates = new ArrayList<>(List.of(
                Updates.set("ip", node.node().ip()),
                Updates.set("port", node.node().port()),
                Updates.set("instance", node.instance()),
                Updates.set("host", node.host()),
                Updates.set("state", node.state().name()),
                Updates.set("slots", node.slots()),
                // How many, for the claim plans, which read it without the list.
                Updates.set("held", node.slots().size()),
                Updates.set("maxSlots", node.maxSlots()),
                Updates.set(
                        "robots", new Document("running", node.robotsRunning()).append("failed", node.robotsFailed())),
                Updates.set(
                        "load",
                        new Document("cpu", round(node.cpu()))
                                .append("memory", round(node.memory()))
                                .append("score", node.load())),
                Updates.set("version", node.version()),
                Updates.set("interval", node.interval().toMillis()),
                Updates.set("types", node.types()),
                Updates.currentDate("time")));
        if (write == Write.FIRST) {
            // A new process: its own start, and no drain request meant for the process before it.
            updates.add(Updates.currentDate("started"));
            updates.add(Updates.unset("drain"));
        }
        Document after = nodes.findOneAndUpdate(
                Filters.eq("_id", node.node().toString()),
                Updates.combine(updates),
                new FindOneAndUpdateOptions()
                        .upsert(true)
                        .returnDocument(ReturnDocument.AFTER)
                        .projection(Projections.include("drain")));
        return after != null && after.get("drain") != null;
    }

    private static double round(double fraction) {
        return Math.round(fraction * 100) / 100.0;
    }

    @Override
    public void remove(NodeId node, String instance) {
        nodes.deleteOne(Filters.and(Filters.eq("_id", node.toString()), Filters.eq("instance", instance)));
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
                Filters.ne("state", NodeState.DRAINING.name()),
                Filters.exists("drain", false),
                Filters.expr(new Document(
                        "$lte",
                        List.of(
                                new Document("$subtract", List.of("$$NOW", "$time")),
                                new Document("$multiply", List.of("$interval", 3))))));
        List<ClaimPlan.Member> members = new ArrayList<>();
        for (Document doc : nodes.find(live)
                .projection(Projections.include("ip", "port", "maxSlots", "load.score", "held"))
                .batchSize(MongoSlotStore.ONE_BATCH)) {
            try {
                members.add(new ClaimPlan.Member(
                        new NodeId(doc.getString("ip"), ((Number) doc.get("port")).intValue()),
                        number(doc.get("load", new Document()).get("score")),
                        ((Number) doc.get("maxSlots")).intValue(),
                        number(doc.get("held"))));
            } catch (RuntimeException e) {
                // Not well-formed: not a member.
            }
        }
        return members;
    }

    private static NodeView parse(Document doc) {
        try {
            NodeId id = new NodeId(doc.getString("ip"), ((Number) doc.get("port")).intValue());
            Instant time = doc.getDate("time").toInstant();
            Instant now = doc.getDate(SERVER_NOW).toInstant();
            Document robots = doc.get("robots", new Document());
            Document load = doc.get("load", new Document());
            return new NodeView(
                    id,
                    doc.getString("instance"),
                    doc.getString("host"),
                    NodeState.valueOf(doc.getString("state")),
                    doc.getList("slots", String.class, List.of()),
                    ((Number) doc.get("maxSlots")).intValue(),
                    number(robots.get("running")),
                    number(robots.get("failed")),
                    decimal(load.get("cpu")),
                    decimal(load.get("memory")),
                    number(load.get("score")),
                    doc.getString("version"),
                    Duration.ofMillis(number(doc.get("interval"))),
                    doc.get("started") instanceof Date started ? started.toInstant() : null,
                    time,
                    Duration.between(time, now),
                    doc.get("drain") != null,
                    doc.getList("types", String.class, List.of()));
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
        return nodes.deleteMany(ServerAge.olderThan("time", olderThan)).getDeletedCount();
    }

    @Override
    public boolean requestDrain(NodeId node) {
        return nodes.updateOne(Filters.eq("_id", node.toString()), Updates.currentDate("drain"))
                        .getMatchedCount()
                == 1;
    }
}
