package io.standby.robot.internal;

import io.standby.slot.internal.OwnerLinks;
import io.standby.slot.internal.StandbyLink;
import io.standby.slot.internal.StandbyLinks;
import java.util.ArrayList;
import java.util.List;

/**
 * The watch links of the simulation: TCP connections between node processes, as the real transport uses them
 * ({@code TcpWatchLinks}), with the faults TCP has. Each direction delivers in order, each message a few milliseconds
 * late, later in a storm, and to a paused process only when it runs again. A connect to a process that is down, to
 * another instance than the one wanted, or under a REJECT rule is refused. A killed process's peers see end of stream,
 * unless its host went down with it: then only silence. In storms a link also breaks: both ends see its end, or one end
 * only (half open) while the other hears nothing more, or neither.
 */
final class SimWatchNet {

    private final Sim sim;
    private final SimWorld world;
    private final List<Conn> conns = new ArrayList<>();
    /** Until when messages may be slow: a storm's congested network. */
    private long slowUntil;

    int broken;

    SimWatchNet(SimWorld world) {
        this.sim = world.sim;
        this.world = world;
    }

    /** The connector of {@code node}'s current process. */
    StandbyLinks.Connector connector(SimNode node) {
        int gen = node.generation;
        return (target, link) -> connect(node, gen, target, link);
    }

    private StandbyLinks.Connection connect(SimNode from, int fromGen, StandbyLinks.Target target, StandbyLink link) {
        SimNode owner = world.nodes.stream()
                .filter(n -> n.id.equals(target.node()))
                .findFirst()
                .orElse(null);
        Conn conn = new Conn(from, fromGen, link);
        if (owner == null
                || !owner.up
                || sim.now() < owner.rejectingUntil
                || owner.ownerLinks == null
                || !target.instance().equals(owner.instance)) {
            from.afterFor(fromGen, delay(), () -> link.ended("connect refused"));
            conn.toOwner = false;
            conn.toWatcher = false;
            return conn;
        }
        conn.owner = owner;
        conn.ownerGen = owner.generation;
        conns.add(conn);
        OwnerLinks ownerLinks = owner.ownerLinks;
        conn.toOwner(() -> {
            // As the real transport: the handshake's proofs first (the owner's instance), then the link's first ping.
            String instance = owner.instance;
            conn.toWatcher(() -> {
                if (!link.authenticated(instance)) {
                    conn.hangUpByWatcher();
                }
            });
            conn.handle = ownerLinks.opened(conn);
        });
        return conn;
    }

    private long delay() {
        return sim.now() < slowUntil && sim.chance(0.3)
                ? sim.between(0, world.watchLease.toNanos() / 2)
                : sim.between(0, 3 * Sim.MS);
    }

    /** A process ended: its peers see end of stream, or, if its host went down, nothing more. */
    void processEnded(SimNode node, int gen, boolean hostDown) {
        for (Conn conn : List.copyOf(conns)) {
            if (conn.owner == node && conn.ownerGen == gen) {
                conn.toOwner = false;
                if (hostDown) {
                    conn.toWatcher = false;
                } else {
                    conn.toWatcher(() -> conn.link.ended("end of stream"));
                    conn.toWatcher = false;
                }
                conns.remove(conn);
            } else if (conn.watcher == node && conn.watcherGen == gen) {
                conn.toWatcher = false;
                if (hostDown) {
                    conn.toOwner = false;
                } else {
                    Object handle = conn.handle;
                    OwnerLinks ownerLinks = conn.owner.ownerLinks;
                    conn.toOwner(() -> {
                        if (handle != null) {
                            ownerLinks.ended(handle, "end of stream");
                        }
                    });
                    conn.toOwner = false;
                }
                conns.remove(conn);
            }
        }
    }

    /** A storm's fault on one link, or a slow network for a while. */
    void fault() {
        if (sim.chance(0.3)) {
            slowUntil = sim.now() + sim.between(0, 3 * world.watchLease.toNanos());
            sim.note("watch links: slow network");
            return;
        }
        if (conns.isEmpty()) {
            return;
        }
        Conn conn = conns.get(sim.random.nextInt(conns.size()));
        conns.remove(conn);
        broken++;
        double r = sim.random.nextDouble();
        Object handle = conn.handle;
        OwnerLinks ownerLinks = conn.owner.ownerLinks;
        if (r < 0.4) {
            sim.note("watch link " + conn + " breaks: both ends see it");
            conn.toWatcher(() -> conn.link.ended("connection reset"));
            conn.toOwner(() -> {
                if (handle != null) {
                    ownerLinks.ended(handle, "connection reset");
                }
            });
            conn.toWatcher = false;
            conn.toOwner = false;
        } else if (r < 0.6) {
            sim.note("watch link " + conn + " half open: only the watcher sees its end");
            conn.toWatcher(() -> conn.link.ended("connection reset"));
            conn.toWatcher = false;
            conn.toOwner = false;
        } else if (r < 0.8) {
            sim.note("watch link " + conn + " half open: only the owner sees its end");
            conn.toOwner(() -> {
                if (handle != null) {
                    ownerLinks.ended(handle, "connection reset");
                }
            });
            conn.toWatcher = false;
            conn.toOwner = false;
        } else {
            sim.note("watch link " + conn + " goes silent both ways");
            conn.toWatcher = false;
            conn.toOwner = false;
        }
    }

    /** One connection: the watcher's process and link, the owner's process and handle. */
    private final class Conn implements OwnerLinks.Link, StandbyLinks.Connection {
        final SimNode watcher;
        final int watcherGen;
        final StandbyLink link;
        SimNode owner;
        int ownerGen;
        Object handle;
        boolean toOwner = true;
        boolean toWatcher = true;
        private long lastToOwner;
        private long lastToWatcher;

        Conn(SimNode watcher, int watcherGen, StandbyLink link) {
            this.watcher = watcher;
            this.watcherGen = watcherGen;
            this.link = link;
        }

        void toOwner(Runnable action) {
            if (!toOwner) {
                return;
            }
            long at = Math.max(sim.now() + delay(), lastToOwner);
            lastToOwner = at;
            owner.afterFor(ownerGen, at - sim.now(), action);
        }

        void toWatcher(Runnable action) {
            if (!toWatcher) {
                return;
            }
            long at = Math.max(sim.now() + delay(), lastToWatcher);
            lastToWatcher = at;
            watcher.afterFor(watcherGen, at - sim.now(), action);
        }

        @Override
        public void send(OwnerLinks.Ping ping) {
            toWatcher(() -> {
                if (link.pinged(ping.beat())) {
                    Object h = handle;
                    OwnerLinks ownerLinks = owner.ownerLinks;
                    toOwner(() -> ownerLinks.acked(h, ping.seq()));
                } else {
                    hangUpByWatcher();
                }
            });
        }

        /** The owner closes the connection: the watcher sees its end. */
        @Override
        public void close() {
            toWatcher(() -> link.ended("end of stream"));
            toWatcher = false;
            toOwner = false;
            conns.remove(this);
        }

        /** The watcher says goodbye and closes. */
        @Override
        public void goodbye() {
            Object h = handle;
            OwnerLinks ownerLinks = owner == null ? null : owner.ownerLinks;
            toOwner(() -> {
                if (h != null) {
                    ownerLinks.goodbye(h);
                }
            });
            toOwner = false;
            toWatcher = false;
            conns.remove(this);
        }

        /** The watcher closes without a goodbye (it counts the link dead): the owner sees its end. */
        void hangUpByWatcher() {
            Object h = handle;
            OwnerLinks ownerLinks = owner.ownerLinks;
            toOwner(() -> {
                if (h != null) {
                    ownerLinks.ended(h, "end of stream");
                }
            });
            toOwner = false;
            toWatcher = false;
            conns.remove(this);
        }

        @Override
        public String toString() {
            return watcher + "->" + owner;
        }
    }
}
