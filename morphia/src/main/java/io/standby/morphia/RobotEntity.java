package io.standby.morphia;

import dev.morphia.annotations.Entity;
import dev.morphia.annotations.Id;
import dev.morphia.annotations.Property;
import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotState;
import java.time.Instant;
import org.bson.Document;

/**
 * A robot as the operator's table and its runner wrote it into {@code robots}: what it is ({@code type},
 * {@code config}, {@code slotId}, {@code priority}, {@code weight}), what the operator wants ({@code desired}), what
 * its runner reports ({@code state}, {@code node}, {@code restarts}, {@code lastError}), its progress ({@code context},
 * {@code seq}) and the fencing token its last runner held ({@code incarnation}, {@code epoch}, {@code fences}).
 *
 * <p>Which robots are FAILED: {@code datastore.find(RobotEntity.class).filter(Filters.eq(RobotFields.STATE,
 * RobotState.FAILED))}. {@code state} is what the last runner wrote: a robot whose node died says RUNNING until the
 * slot's next owner takes it.
 */
@Entity(value = RobotFields.COLLECTION, useDiscriminator = false)
public class RobotEntity extends StandbyEntity {

    @Id
    private String id;

    @Property(RobotFields.INCARNATION)
    private String incarnation;

    @Property(RobotFields.TYPE)
    private String type;

    @Property(RobotFields.SLOT)
    private String slotId;

    @Property(RobotFields.PRIORITY)
    private int priority;

    @Property(RobotFields.WEIGHT)
    private double weight;

    @Property(RobotFields.CONFIG)
    private Document config;

    @Property(RobotFields.DESIRED)
    private String desired;

    @Property(RobotFields.STATE)
    private RobotState state;

    @Property(RobotFields.NODE)
    private String node;

    @Property(RobotFields.CONTEXT)
    private Document context;

    @Property(RobotFields.SEQ)
    private long seq;

    @Property(RobotFields.STATUS_SEQ)
    private long statusSeq;

    @Property(RobotFields.EPOCH)
    private long epoch;

    @Property(RobotFields.FENCES)
    private long fences;

    @Property(RobotFields.RESTARTS)
    private int restarts;

    @Property(RobotFields.LAST_ERROR)
    private String lastError;

    @Property(RobotFields.TARGET)
    private String target;

    @Property(RobotFields.REQUEST)
    private Request request;

    @Property(RobotFields.UPDATED)
    private Instant updated;

    RobotEntity() {}

    /** The robot's id. */
    public String id() {
        return id;
    }

    /** New at every add of this id: an earlier robot of the same id never writes into this one's document. */
    public String incarnation() {
        return incarnation;
    }

    /** The robot type, as its factory names it. */
    public String type() {
        return type;
    }

    /** The slot the robot is bound to. */
    public String slotId() {
        return slotId;
    }

    public int priority() {
        return priority;
    }

    public double weight() {
        return weight;
    }

    /** The robot's configuration, as added. */
    public Document config() {
        return config;
    }

    /** What the operator wants: {@code running} or {@code stopped}. */
    public String desired() {
        return desired;
    }

    /** What the robot's last runner reported. */
    public RobotState state() {
        return state;
    }

    /** The node ({@code ip:port}) of its last runner, or null. */
    public String node() {
        return node;
    }

    /** The robot's last checkpoint. */
    public Document context() {
        return context;
    }

    /** The sequence number of the checkpoint that wrote {@link #context()}, under the current token. */
    public long seq() {
        return seq;
    }

    /** The sequence number of the last status write, under the current token. */
    public long statusSeq() {
        return statusSeq;
    }

    /** The slot's epoch in the robot's last fencing token. */
    public long epoch() {
        return epoch;
    }

    /** How many times the robot was fenced. */
    public long fences() {
        return fences;
    }

    /** Restarts after failures, within the current failure window. */
    public int restarts() {
        return restarts;
    }

    /** What its last failure said, or null. */
    public String lastError() {
        return lastError;
    }

    /** The slot it is being moved to, or null. */
    public String target() {
        return target;
    }

    /** The operator's last change to it. */
    public Request request() {
        return request;
    }

    /** The last write to the document, by the server's clock, or null before its first run. */
    public Instant updated() {
        return updated;
    }

    /** The operator's last change: {@code {slot, at}}. */
    @Entity(useDiscriminator = false)
    public static class Request {

        @Property(RobotFields.REQUEST_SLOT)
        private String slot;

        @Property(RobotFields.REQUEST_AT)
        private Instant at;

        Request() {}

        /** The robot's slot at the change. */
        public String slot() {
            return slot;
        }

        /** When, by the operator's clock. */
        public Instant at() {
            return at;
        }
    }
}
