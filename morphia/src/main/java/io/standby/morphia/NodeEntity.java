package io.standby.morphia;

import dev.morphia.annotations.Entity;
import dev.morphia.annotations.Id;
import dev.morphia.annotations.Property;
import io.standby.slot.NodeFields;
import io.standby.slot.NodeState;
import java.time.Instant;
import java.util.List;

/**
 * A node's entry in the registry, {@code nodes}, as the node writes it every interval: {@code {_id: "ip:port", ip,
 * port, instance, host, state, slots, held, maxSlots, robots: {running, failed}, load: {cpu, memory, score}, version,
 * interval, types, started, time}}, and {@code drain} after an operator asked it to drain. A node that stopped
 * gracefully removed its entry; one that died leaves it, {@code time} no longer rising.
 */
@Entity(value = NodeFields.COLLECTION, useDiscriminator = false)
public class NodeEntity extends StandbyEntity {

    @Id
    private String id;

    @Property(NodeFields.IP)
    private String ip;

    @Property(NodeFields.PORT)
    private int port;

    @Property(NodeFields.INSTANCE)
    private String instance;

    @Property(NodeFields.HOST)
    private String host;

    @Property(NodeFields.STATE)
    private NodeState state;

    @Property(NodeFields.SLOTS)
    private List<String> slots;

    @Property(NodeFields.HELD)
    private int held;

    @Property(NodeFields.MAX_SLOTS)
    private int maxSlots;

    @Property(NodeFields.ROBOTS)
    private Robots robots;

    @Property(NodeFields.LOAD)
    private Load load;

    @Property(NodeFields.VERSION)
    private String version;

    @Property(NodeFields.INTERVAL)
    private long interval;

    @Property(NodeFields.TYPES)
    private List<String> types;

    @Property(NodeFields.STARTED)
    private Instant started;

    @Property(NodeFields.TIME)
    private Instant time;

    @Property(NodeFields.DRAIN)
    private Instant drain;

    NodeEntity() {}

    /** {@code ip:port}. */
    public String id() {
        return id;
    }

    public String ip() {
        return ip;
    }

    public int port() {
        return port;
    }

    /** The node's current process. */
    public String instance() {
        return instance;
    }

    /** The host name it runs on. */
    public String host() {
        return host;
    }

    public NodeState state() {
        return state;
    }

    /** The ids of the slots it holds. */
    public List<String> slots() {
        return slots;
    }

    /** How many slots it holds. */
    public int held() {
        return held;
    }

    public int maxSlots() {
        return maxSlots;
    }

    /** How many of its robots run, and how many failed. */
    public Robots robots() {
        return robots;
    }

    /** Its load: CPU and memory fractions, and the score that orders claims. */
    public Load load() {
        return load;
    }

    /** Standby's version on the node. */
    public String version() {
        return version;
    }

    /** How often the node writes this entry, in milliseconds. */
    public long interval() {
        return interval;
    }

    /** The robot types it can run. */
    public List<String> types() {
        return types;
    }

    /** When its process first wrote the entry, by the server's clock. */
    public Instant started() {
        return started;
    }

    /** Its last write, by the server's clock. */
    public Instant time() {
        return time;
    }

    /** When an operator asked it to drain, by the server's clock, or null. */
    public Instant drain() {
        return drain;
    }

    /** {@code {running, failed}}. */
    @Entity(useDiscriminator = false)
    public static class Robots {

        @Property(NodeFields.ROBOTS_RUNNING)
        private int running;

        @Property(NodeFields.ROBOTS_FAILED)
        private int failed;

        Robots() {}

        public int running() {
            return running;
        }

        public int failed() {
            return failed;
        }
    }

    /** {@code {cpu, memory, score}}. */
    @Entity(useDiscriminator = false)
    public static class Load {

        @Property(NodeFields.LOAD_CPU)
        private double cpu;

        @Property(NodeFields.LOAD_MEMORY)
        private double memory;

        @Property(NodeFields.LOAD_SCORE)
        private int score;

        Load() {}

        /** The CPU in use, a fraction of the machine's. */
        public double cpu() {
            return cpu;
        }

        /** The heap in use, a fraction of the maximum. */
        public double memory() {
            return memory;
        }

        /** The load score that orders claims: lower claims first. */
        public int score() {
            return score;
        }
    }
}
