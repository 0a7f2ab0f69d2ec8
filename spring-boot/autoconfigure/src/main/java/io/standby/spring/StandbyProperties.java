package io.standby.spring;

import com.mongodb.ConnectionString;
import io.standby.node.StandbyNodeBuilder;
import io.standby.slot.Durations;
import io.standby.slot.FenceCheck;
import io.standby.slot.NodeId;
import io.standby.slot.SlotTiming;
import io.standby.slot.WatchLinks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * The node's settings under {@code standby.*}, the same as the {@code standby node} command's options. They are checked
 * when bound, by the rules the node itself applies, so a bad value stops the application at startup with the property,
 * its value and the reason; nothing has been bound or connected by then.
 */
@ConfigurationProperties(prefix = StandbyProperties.PREFIX)
public class StandbyProperties implements Validator {

    // The defaults below are literals, the node's own defaults, so that the configuration processor can
    // write them into the metadata; StandbyPropertiesTest checks that they still match the node's constants.

    public static final String PREFIX = "standby";

    /** Whether to run a Standby node in this application. */
    private boolean enabled = true;
    /** The database's connection. */
    private Mongo mongo = new Mongo();
    /** The database that holds the slots and robots. */
    private String database = "standby";
    /** The node's identity: a literal IP address of this machine, at which other nodes reach it. Required. */
    private String ip;
    /** The node's port, 1-65535: its own HTTP endpoint listens there (see endpoint). Required. */
    private Integer port;
    /** Whether the node binds ip:port for its own HTTP endpoint (/health, /ready, /status, the dashboard). */
    private boolean endpoint = true;
    /** The most slots this node owns at once. */
    private int maxSlots = 1;
    /** How often the owner renews each of its slots. */
    private Duration heartbeat = Duration.ofSeconds(2);
    /** How long a slot stays owned without a renewal, by the database's clock; more than twice the heartbeat. */
    private Duration lease = Duration.ofSeconds(20);
    /** How often the node looks for claimable slots; less than the lease. */
    private Duration poll = Duration.ofSeconds(1);
    /**
     * Whether a standby takes a slot over before its lease ends when the owner is late and its address refuses connects
     * (its process is gone).
     */
    private boolean fastFailover = true;
    /**
     * Watch links: other nodes keep a connection to this one and take its slots about 1.1 watch leases after it died or
     * froze, whatever the lease; this node pauses a slot's robots if a link breaks and the database does not answer a
     * renewal within about 0.4 watch leases. Authenticated with the cluster's key, kept in the database (collection
     * secrets). Off: slots are taken over at the late mark or the lease.
     */
    private boolean watchLinks = true;
    /**
     * The watch lease: 1s, or the heartbeat if shorter, when unset (links are off by default below a heartbeat of
     * 500ms, where the late mark is about as fast). At least 100ms, shorter than the late mark.
     */
    private Duration watchLease;
    /** The port of the node's ip it takes watch links on; 0 for any free port, written into its owner document. */
    private int watchPort;
    /** How long robots get for a final checkpoint at shutdown before they are interrupted. */
    private Duration stopTimeout = Duration.ofSeconds(10);
    /** A directory of robot plugin jars, whose robot types the node runs besides the RobotFactory beans. */
    private Path pluginsDir;

    @Override
    public boolean supports(Class<?> type) {
        return StandbyProperties.class.isAssignableFrom(type);
    }

    /** The node's own rules, each reported on the property it concerns. */
    @Override
    public void validate(Object target, Errors errors) {
        if (!enabled) {
            return;
        }
        if (ip == null || ip.isBlank()) {
            errors.rejectValue(
                    "ip",
                    "required",
                    "the node's identity is required: set standby.ip (a literal IP address of this machine)");
        }
        if (port == null) {
            errors.rejectValue("port", "required", "the node's identity is required: set standby.port (1-65535)");
        }
        if (ip != null && !ip.isBlank() && port != null) {
            try {
                new NodeId(ip, port);
            } catch (IllegalArgumentException e) {
                errors.rejectValue(
                        e.getMessage().startsWith("invalid port") ? "port" : "ip", "invalid", e.getMessage());
            }
        }
        if (maxSlots < 1) {
            errors.rejectValue("maxSlots", "invalid", "max slots " + maxSlots + " must be at least 1");
        }
        try {
            timing();
        } catch (IllegalArgumentException e) {
            String message = e.getMessage();
            errors.rejectValue(
                    message.startsWith("heartbeat") ? "heartbeat" : message.startsWith("poll") ? "poll" : "lease",
                    "invalid",
                    message);
        }
        if (watchLinks) {
            try {
                watchLinkRules();
            } catch (IllegalArgumentException e) {
                errors.rejectValue(
                        e.getMessage().startsWith("invalid watch port") ? "watchPort" : "watchLease",
                        "invalid",
                        e.getMessage());
            }
        }
        if (stopTimeout == null || stopTimeout.isNegative() || stopTimeout.isZero()) {
            errors.rejectValue(
                    "stopTimeout",
                    "invalid",
                    "stop timeout " + (stopTimeout == null ? "null" : Durations.format(stopTimeout))
                            + " must be more than 0");
        }
        if (mongo.getUri() != null) {
            try {
                new ConnectionString(mongo.getUri());
            } catch (IllegalArgumentException e) {
                errors.rejectValue("mongo.uri", "invalid", "invalid MongoDB URI: " + e.getMessage());
            }
        }
        if (database == null || !database.matches("[A-Za-z0-9_-]{1,63}")) {
            errors.rejectValue(
                    "database", "invalid", "invalid database name: use letters, digits, '_' or '-' (at most 63)");
        }
        if (pluginsDir != null && !Files.isDirectory(pluginsDir)) {
            errors.rejectValue(
                    "pluginsDir", "invalid", "invalid plugin directory '" + pluginsDir + "': not a directory");
        }
    }

    /** Heartbeat, lease and poll. @throws IllegalArgumentException naming the broken timing rule */
    public SlotTiming timing() {
        if (heartbeat == null || lease == null || poll == null) {
            throw new IllegalArgumentException("heartbeat, lease and poll are required");
        }
        return SlotTiming.of(heartbeat, lease, poll);
    }

    /** The rules of the watch lease and port, as the node builder checks them. */
    private void watchLinkRules() {
        new WatchLinks(watchLease == null ? WatchLinks.MIN_LEASE : watchLease, watchPort);
        SlotTiming timing;
        try {
            timing = timing();
        } catch (IllegalArgumentException e) {
            return;
        }
        if (watchLease != null && watchLease.compareTo(timing.late()) >= 0) {
            throw new IllegalArgumentException("invalid watch lease " + Durations.format(watchLease)
                    + ": must be shorter than the late mark " + Durations.format(timing.late()) + " (two heartbeats)");
        }
        if (watchLease != null) {
            FenceCheck.requireCovered(timing, watchLease);
        }
    }

    /** These settings on a node builder; the database, robots and listeners are the auto-configuration's. */
    StandbyNodeBuilder applyTo(StandbyNodeBuilder builder) {
        builder.node(ip, port == null ? 0 : port)
                .maxSlots(maxSlots)
                .timing(timing())
                .watchLease(watchLease)
                .watchPort(watchPort)
                .stopTimeout(stopTimeout)
                .database(database);
        if (!fastFailover) {
            builder.withoutFastFailover();
        }
        if (!watchLinks) {
            builder.withoutWatchLinks();
        }
        if (!endpoint) {
            builder.withoutEndpoint();
        }
        return builder;
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Mongo getMongo() {
        return mongo;
    }

    public void setMongo(Mongo mongo) {
        this.mongo = mongo;
    }

    public String getDatabase() {
        return database;
    }

    public void setDatabase(String database) {
        this.database = database;
    }

    public String getIp() {
        return ip;
    }

    public void setIp(String ip) {
        this.ip = ip;
    }

    public Integer getPort() {
        return port;
    }

    public void setPort(Integer port) {
        this.port = port;
    }

    public boolean isEndpoint() {
        return endpoint;
    }

    public void setEndpoint(boolean endpoint) {
        this.endpoint = endpoint;
    }

    public int getMaxSlots() {
        return maxSlots;
    }

    public void setMaxSlots(int maxSlots) {
        this.maxSlots = maxSlots;
    }

    public Duration getHeartbeat() {
        return heartbeat;
    }

    public void setHeartbeat(Duration heartbeat) {
        this.heartbeat = heartbeat;
    }

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }

    public Duration getPoll() {
        return poll;
    }

    public void setPoll(Duration poll) {
        this.poll = poll;
    }

    public boolean isFastFailover() {
        return fastFailover;
    }

    public void setFastFailover(boolean fastFailover) {
        this.fastFailover = fastFailover;
    }

    public boolean isWatchLinks() {
        return watchLinks;
    }

    public void setWatchLinks(boolean watchLinks) {
        this.watchLinks = watchLinks;
    }

    public int getWatchPort() {
        return watchPort;
    }

    public void setWatchPort(int watchPort) {
        this.watchPort = watchPort;
    }

    public Duration getWatchLease() {
        return watchLease;
    }

    public void setWatchLease(Duration watchLease) {
        this.watchLease = watchLease;
    }

    public Duration getStopTimeout() {
        return stopTimeout;
    }

    public void setStopTimeout(Duration stopTimeout) {
        this.stopTimeout = stopTimeout;
    }

    public Path getPluginsDir() {
        return pluginsDir;
    }

    public void setPluginsDir(Path pluginsDir) {
        this.pluginsDir = pluginsDir;
    }

    /**
     * {@code standby.mongo.*}: a URI is named {@code …uri}, as in Spring Boot's own properties. The old scalar
     * {@code standby.mongo} still binds here as the URI, unless {@code standby.mongo.uri} is set.
     */
    public static class Mongo {

        /**
         * MongoDB URI of the slots and robots. When unset, the node uses the application's own MongoClient bean if it
         * has one (among several, the one marked @StandbyMongoClient or @Primary), and otherwise
         * mongodb://127.0.0.1:27017.
         */
        private String uri;

        public String getUri() {
            return uri;
        }

        public void setUri(String uri) {
            this.uri = uri;
        }
    }
}
