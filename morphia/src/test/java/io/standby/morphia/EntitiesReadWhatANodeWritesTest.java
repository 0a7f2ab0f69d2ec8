package io.standby.morphia;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import dev.morphia.Datastore;
import dev.morphia.Morphia;
import dev.morphia.config.ManualMorphiaConfig;
import dev.morphia.mapping.codec.pojo.EntityModel;
import dev.morphia.mapping.codec.pojo.PropertyModel;
import io.standby.node.StandbyNode;
import io.standby.robot.admin.RobotTable;
import io.standby.robot.internal.RobotRules;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotFields;
import io.standby.slot.EventFields;
import io.standby.slot.Lease;
import io.standby.slot.NodeFields;
import io.standby.slot.NodeId;
import io.standby.slot.SlotFields;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.Takeover;
import io.standby.slot.internal.EventLog;
import io.standby.slot.internal.EventRecorder;
import io.standby.slot.internal.LinkRules;
import io.standby.slot.internal.MongoNodeRegistry;
import io.standby.slot.internal.SlotRules;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestPorts;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeSet;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A real node writes the documents (a slot it owns, its owner document, a robot RUNNING and one FAILED, its registry
 * entry, events); the entities read them back, every field. Each entity's mapped field set must equal the key set of
 * the documents read, so a field that a node starts to write fails here until an entity maps it. The fields only some
 * moments carry (an operator's drain request, a dead link's mark, a pending move, a takeover's evidence) are written
 * with the protocol's own rules and recorder and read back the same way.
 */
class EntitiesReadWhatANodeWritesTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private MongoDatabase raw;
    private Datastore datastore;
    private StandbyNode node;
    private NodeId nodeId;

    @BeforeEach
    void setUp() {
        raw = database.connection().database();
        datastore = Morphia.createDatastore(
                database.connection().client(),
                ManualMorphiaConfig.configure()
                        .database(database.name())
                        .packages(List.of())
                        .applyIndexes(false));
        new SlotTable(database.connection()).init(1);
        RobotTable robots = new RobotTable(database.connection());
        robots.add(
                new RobotTable.NewRobot("steady-1", NodeWrites.STEADY, "slot-0", 0, 1, new Document("every", 50)),
                OptionalDouble.empty());
        robots.add(
                new RobotTable.NewRobot("broken-1", NodeWrites.BROKEN, "slot-0", 0, 1, new Document()),
                OptionalDouble.empty());
        int port = TestPorts.free();
        nodeId = new NodeId("127.0.0.1", port);
        node = NodeWrites.start(database.uri(), database.name(), port);
        // Until the registry reports both robots' fates and the steady one has checkpointed.
        await().atMost(WAIT).until(() -> {
            Document entry = raw.getCollection(NodeFields.COLLECTION)
                    .find(Filters.eq(NodeFields.ID, nodeId.toString()))
                    .first();
            Document steady = raw.getCollection(RobotFields.COLLECTION)
                    .find(Filters.eq(RobotFields.ID, "steady-1"))
                    .first();
            return entry != null
                    && entry.get(NodeFields.ROBOTS, Document.class).getInteger(NodeFields.ROBOTS_FAILED) == 1
                    && entry.get(NodeFields.ROBOTS, Document.class).getInteger(NodeFields.ROBOTS_RUNNING) == 1
                    && steady.getLong(RobotFields.SEQ) > 0
                    && steady.get(RobotFields.UPDATED) != null;
        });
    }

    @AfterEach
    void tearDown() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void theSlotItsOwnerAndTheOwnersEntryReadBackEveryField() {
        Read<SlotEntity> read = stable(
                SlotFields.COLLECTION,
                "slot-0",
                () -> datastore
                        .find(SlotEntity.class)
                        .filter(dev.morphia.query.filters.Filters.eq(SlotFields.ID, "slot-0"))
                        .first());
        SlotEntity entity = read.entity();
        Document slot = read.doc();
        assertNotNull(entity);
        assertEquals("127.0.0.1", entity.ip());
        assertEquals(nodeId.port(), entity.port());
        assertTrue(entity.epoch() >= 1, "claimed at least once: " + entity.epoch());
        assertReadsBack(SlotEntity.class, slot, entity, Set.of(SlotFields.DRAIN, SlotFields.LINK_END));

        List<OwnerEntity> owners = datastore.find(OwnerEntity.class).iterator().toList();
        assertEquals(1, owners.size(), "one owner process");
        String ownerId = SlotFields.OWNER_PREFIX + nodeId + "/" + entity.instance();
        assertEquals(ownerId, owners.get(0).id());
        Read<OwnerEntity> owner = stable(
                SlotFields.OWNERS_COLLECTION,
                ownerId,
                () -> datastore
                        .find(OwnerEntity.class)
                        .filter(dev.morphia.query.filters.Filters.eq(SlotFields.ID, ownerId))
                        .first());
        assertNotNull(owner.entity().watch(), "the node takes watch links");
        assertReadsBack(OwnerEntity.class, owner.doc(), owner.entity(), Set.of());
        assertEquals(
                List.of("slot-0"),
                datastore.find(SlotEntity.class).stream().map(SlotEntity::id).toList(),
                "the slots collection holds slots alone");

        Document entry = raw.getCollection(NodeFields.COLLECTION)
                .find(Filters.eq(NodeFields.ID, nodeId.toString()))
                .first();
        NodeEntity registered = datastore.find(NodeEntity.class).first();
        assertEquals(List.of("slot-0"), registered.slots());
        assertEquals(1, registered.robots().failed());
        assertReadsBack(NodeEntity.class, entry, registered, Set.of(NodeFields.DRAIN));

        // An operator's drain request, as NodeTable sends it, read before the node acts on it.
        assertTrue(new MongoNodeRegistry(raw).requestDrain(nodeId));
        Document asked = raw.getCollection(NodeFields.COLLECTION)
                .find(Filters.eq(NodeFields.ID, nodeId.toString()))
                .first();
        assertReadsBack(
                NodeEntity.class, asked, datastore.find(NodeEntity.class).first(), Set.of());
    }

    @Test
    void aRunningAndAFailedRobotReadBackEveryField() {
        MongoCollection<Document> robots = raw.getCollection(RobotFields.COLLECTION);
        Read<RobotEntity> steady = stable(
                RobotFields.COLLECTION,
                "steady-1",
                () -> datastore
                        .find(RobotEntity.class)
                        .filter(dev.morphia.query.filters.Filters.eq(RobotFields.ID, "steady-1"))
                        .first());
        assertEquals(io.standby.robot.model.RobotState.RUNNING, steady.entity().state());
        assertTrue(
                steady.entity().context().getLong("count") > 0,
                "checkpointed: " + steady.entity().context());
        assertReadsBack(RobotEntity.class, steady.doc(), steady.entity(), Set.of(RobotFields.TARGET));

        RobotEntity broken = datastore
                .find(RobotEntity.class)
                .filter(dev.morphia.query.filters.Filters.eq(
                        RobotFields.STATE, io.standby.robot.model.RobotState.FAILED))
                .first();
        assertEquals("broken-1", broken.id());
        assertTrue(broken.lastError().contains("broken on purpose"), broken.lastError());
        assertReadsBack(
                RobotEntity.class,
                robots.find(Filters.eq(RobotFields.ID, "broken-1")).first(),
                broken,
                Set.of(RobotFields.TARGET));

        // A move the operator asked for, with the store's own rule: target is set until the hand-over.
        node.close();
        node = null;
        Document stored = robots.find(Filters.eq(RobotFields.ID, "broken-1")).first();
        robots.updateOne(
                Filters.eq(RobotFields.ID, "broken-1"),
                RobotRules.requestMove(RobotCodec.parse(stored), "slot-1").update());
        assertReadsBack(
                RobotEntity.class,
                robots.find(Filters.eq(RobotFields.ID, "broken-1")).first(),
                datastore
                        .find(RobotEntity.class)
                        .filter(dev.morphia.query.filters.Filters.eq(RobotFields.ID, "broken-1"))
                        .first(),
                Set.of());
    }

    @Test
    void theSlotsOptionalFieldsReadBackAsTheProtocolWritesThem() {
        node.close();
        node = null;
        MongoCollection<Document> slots = raw.getCollection(SlotFields.COLLECTION);
        slots.updateOne(
                Filters.eq(SlotFields.ID, "slot-0"), SlotRules.markDrainUpdate(new SlotView.Drain("pid-1@host", true)));
        slots.updateOne(Filters.eq(SlotFields.ID, "slot-0"), LinkRules.markLinkEndUpdate());
        SlotEntity entity = datastore
                .find(SlotEntity.class)
                .filter(dev.morphia.query.filters.Filters.eq(SlotFields.ID, "slot-0"))
                .first();
        assertEquals("pid-1@host", entity.drain().instance());
        assertTrue(entity.drain().force());
        assertNotNull(entity.linkEnd());
        assertReadsBack(
                SlotEntity.class,
                slots.find(Filters.eq(SlotFields.ID, "slot-0")).first(),
                entity,
                // A graceful release unsets the owner's late mark.
                Set.of(SlotFields.LATE));
    }

    @Test
    void eventsReadBackEveryField() throws Exception {
        // A takeover's and a loss's fields, written by the node's own recorder.
        try (EventLog log = new EventLog(raw).start()) {
            EventRecorder recorder = new EventRecorder(log);
            Lease lease = new TestLease("slot-0", 7, nodeId);
            SlotView claimed = SlotView.of(
                    "slot-0",
                    new NodeId("127.0.0.1", 1),
                    "pid-2@host",
                    Instant.parse("2026-11-29T10:00:00Z"),
                    Duration.ofSeconds(5),
                    6,
                    Duration.ofSeconds(9));
            recorder.tookOver(lease, claimed, Duration.ofSeconds(9), Takeover.OWNER_GONE, "two refused connects");
            recorder.lost(lease, io.standby.slot.LossReason.FENCED);
            log.close(Duration.ofSeconds(10));
        }
        MongoCollection<Document> events = raw.getCollection(EventFields.COLLECTION);
        await().atMost(WAIT)
                .until(() ->
                        events.countDocuments(Filters.in(EventFields.TYPE, "robot-failed", "took-over", "lost")) == 3);
        List<Document> stored = events.find().into(new ArrayList<>());
        Set<String> types = new TreeSet<>();
        Set<String> keys = new HashSet<>();
        for (Document event : stored) {
            EventEntity entity = datastore
                    .find(EventEntity.class)
                    .filter(dev.morphia.query.filters.Filters.eq(EventFields.ID, event.getObjectId(EventFields.ID)))
                    .first();
            assertEquals(event.getString(EventFields.TYPE), entity.type());
            // Each event carries only its type's fields; together they carry every field.
            assertReadsBack(EventEntity.class, event, entity, mappedNames(EventEntity.class));
            types.add(entity.type());
            keys.addAll(event.keySet());
        }
        assertTrue(
                types.containsAll(Set.of("claimed", "robot-started", "robot-failed", "took-over", "lost")), "" + types);
        assertEquals(mappedNames(EventEntity.class), keys, "every event field, across the events");
    }

    @Test
    void aSaveIsRefused() {
        Document before = raw.getCollection(RobotFields.COLLECTION)
                .find(Filters.eq(RobotFields.ID, "broken-1"))
                .first();
        for (StandbyEntity entity : List.of(
                datastore.find(SlotEntity.class).first(),
                datastore.find(OwnerEntity.class).first(),
                datastore
                        .find(RobotEntity.class)
                        .filter(dev.morphia.query.filters.Filters.eq(RobotFields.ID, "broken-1"))
                        .first(),
                datastore.find(NodeEntity.class).first(),
                datastore.find(EventEntity.class).first())) {
            // Morphia wraps what a lifecycle method throws.
            RuntimeException refused = assertThrows(RuntimeException.class, () -> datastore.save(entity));
            Throwable cause = refused;
            while (cause != null && !(cause instanceof UnsupportedOperationException)) {
                cause = cause.getCause();
            }
            assertNotNull(cause, "refused as read-only: " + refused);
        }
        assertEquals(
                before,
                raw.getCollection(RobotFields.COLLECTION)
                        .find(Filters.eq(RobotFields.ID, "broken-1"))
                        .first());
    }

    /** A document and the entity read from it, between two reads of the document that found it unchanged. */
    private record Read<E>(Document doc, E entity) {}

    /**
     * Reads the document, the entity, and the document again, until the two reads agree: a node renews its slot and
     * rewrites its registry entry while the test reads them.
     */
    private <E> Read<E> stable(String collection, String id, java.util.function.Supplier<E> entity) {
        MongoCollection<Document> docs = raw.getCollection(collection);
        for (int attempt = 0; attempt < 100; attempt++) {
            Document before = docs.find(Filters.eq(SlotFields.ID, id)).first();
            E read = entity.get();
            Document after = docs.find(Filters.eq(SlotFields.ID, id)).first();
            if (before != null && before.equals(after)) {
                return new Read<>(after, read);
            }
        }
        throw new AssertionError(collection + " " + id + " never held still for two reads");
    }

    private record TestLease(String slotId, long epoch, NodeId node) implements Lease {
        @Override
        public boolean isValid() {
            return true;
        }

        @Override
        public Duration sinceRenewal() {
            return Duration.ZERO;
        }
    }

    private Set<String> mappedNames(Class<?> type) {
        Set<String> names = new TreeSet<>();
        for (PropertyModel property : datastore.getMapper().getEntityModel(type).getProperties()) {
            names.add(property.getMappedName());
        }
        return names;
    }

    /**
     * The entity maps exactly the document's keys (but for {@code absent}, fields the document may lack at this
     * moment), and each mapped field holds the document's value, read through its getter as well.
     */
    private void assertReadsBack(Class<?> type, Document doc, Object entity, Set<String> absent) {
        assertNotNull(doc, type.getSimpleName() + ": no document");
        assertNotNull(entity, type.getSimpleName() + ": no entity");
        EntityModel model = datastore.getMapper().getEntityModel(type);
        Set<String> mapped = mappedNames(type);
        assertTrue(
                mapped.containsAll(doc.keySet()),
                type.getSimpleName() + " does not map " + minus(doc.keySet(), mapped) + " of " + doc);
        assertTrue(
                doc.keySet().containsAll(minus(mapped, absent)),
                type.getSimpleName() + " maps " + minus(minus(mapped, doc.keySet()), absent) + ", absent from " + doc);
        for (PropertyModel property : model.getProperties()) {
            Object value = property.getValue(entity);
            assertSame(type.getSimpleName() + "." + property.getName(), doc.get(property.getMappedName()), value);
            assertEquals(value, getter(entity, property.getName()), type.getSimpleName() + "." + property.getName());
        }
    }

    /** A stored value and what the entity decoded from it: the same, up to BSON's types for numbers and dates. */
    private void assertSame(String what, Object stored, Object decoded) {
        if (stored instanceof Document nested && decoded != null && !(decoded instanceof Document)) {
            EntityModel model = datastore.getMapper().getEntityModel(decoded.getClass());
            assertEquals(mappedNames(decoded.getClass()), nested.keySet(), what + ": the embedded fields");
            for (PropertyModel property : model.getProperties()) {
                assertSame(
                        what + "." + property.getName(),
                        nested.get(property.getMappedName()),
                        property.getValue(decoded));
            }
            return;
        }
        Object expected = stored;
        if (stored instanceof Date date) {
            expected = date.toInstant();
        } else if (stored instanceof Number number && decoded instanceof Number) {
            expected = decoded instanceof Double ? (Object) number.doubleValue() : (Object) number.longValue();
            decoded = decoded instanceof Double d ? (Object) d : (Object) ((Number) decoded).longValue();
        } else if (stored == null && decoded instanceof Number n) {
            expected = n instanceof Double ? (Object) 0.0 : (Object) 0L; // a primitive the document lacks
            decoded = n instanceof Double ? n : (Object) n.longValue();
        } else if (stored == null && Boolean.FALSE.equals(decoded)) {
            expected = false;
        } else if (decoded instanceof Enum<?> e) {
            decoded = e.name();
        }
        assertEquals(expected, decoded, what);
    }

    private static Object getter(Object entity, String name) {
        try {
            Method method = entity.getClass().getMethod(name);
            return method.invoke(entity);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(entity.getClass().getSimpleName() + " has no getter " + name + "()", e);
        }
    }

    private static Set<String> minus(Set<String> a, Set<String> b) {
        Set<String> rest = new TreeSet<>(a);
        rest.removeAll(b);
        return rest;
    }
}
