package io.standby.slot.internal;

import static io.standby.slot.internal.OwnerProbe.Result.ACCEPTED;
import static io.standby.slot.internal.OwnerProbe.Result.REFUSED;
import static io.standby.slot.internal.OwnerProbe.Result.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.standby.slot.NodeId;
import io.standby.slot.testing.ManualClock;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Fast failover's rules about whose connects count, and for how long: an address of this machine says nothing about an
 * owner on another host; the periodic forgetting drops only what has aged out; an owner that has not accepted yet is
 * tried at most once per retry interval, however long the node has run. (GoneOwnersTest has the verdict itself: refused
 * twice, a gap apart, by an address that accepted before.)
 */
class GoneOwnersRulesTest {

    private static final NodeId OWNER = new NodeId("10.0.0.5", 7700);
    private static final String HOST = "worker-3:5c3e1a7f:4026531840";
    private static final String OTHER_HOST = "worker-4:77aa01bc:4026531840";
    private static final String INSTANCE = "4242-0a0b0c0d@" + HOST;

    private final ScriptedProbe probe = new ScriptedProbe();
    private final ManualClock clock = new ManualClock();
    private final List<Duration> sleeps = new ArrayList<>();
    private final GoneOwners gone = new GoneOwners(probe, sleeps::add, clock, Duration.ofMillis(100), GoneOwners.GAP);

    private static Optional<String> verdict(GoneOwners gone, NodeId owner, String instance) {
        try {
            return gone.gone(owner, instance);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    // --- whose connects can judge an owner ---

    @Test
    void aLoopbackOwnerCanBeJudgedOnlyWhenItsInstanceRunsOnThisHost() {
        NodeId loopback = new NodeId("127.0.0.1", 7700);

        assertTrue(
                gone.canJudge(loopback, "1-aa@" + HOST, HOST), "a twin on this host is this very process's neighbour");
        assertFalse(
                gone.canJudge(loopback, "1-aa@" + OTHER_HOST, HOST),
                "127.0.0.1 here is not the owner's 127.0.0.1 on its host: a refusal here says nothing about it");
        assertFalse(
                gone.canJudge(loopback, "1-aa@" + HOST, null),
                "a node that cannot tell its own host judges no local address");
        assertFalse(gone.canJudge(loopback, "1-aa", HOST), "an instance without a host is not known to be on this one");
    }

    @Test
    void theWildcardAddressCountsAsThisMachinesToo() {
        // "::0" passes NodeId's check (only "::" and "0:0:0:0:0:0:0:0" are refused) and means any local address.
        NodeId wildcard = new NodeId("::0", 7700);

        assertFalse(gone.canJudge(wildcard, "1-aa@" + OTHER_HOST, HOST));
    }

    @Test
    void anAddressOfOneOfThisMachinesInterfacesCountsAsThisMachines() throws Exception {
        InetAddress own = null;
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                if (!address.isLoopbackAddress() && address.getAddress().length == 4) {
                    own = address;
                }
            }
        }
        assumeTrue(own != null, "this machine has no non-loopback IPv4 address");

        assertFalse(gone.canJudge(new NodeId(own.getHostAddress(), 7700), "1-aa@" + OTHER_HOST, HOST));
    }

    @Test
    void anAddressOfAnotherMachineCanBeJudgedWhereverItsInstanceRuns() throws Exception {
        NodeId remote = null;
        for (String ip : List.of("198.51.100.7", "203.0.113.9", "10.0.0.5")) {
            if (NetworkInterface.getByInetAddress(InetAddress.getByName(ip)) == null) {
                remote = new NodeId(ip, 7700);
                break;
            }
        }
        assumeTrue(remote != null, "every candidate address is this machine's");

        assertTrue(gone.canJudge(remote, "1-aa@" + OTHER_HOST, HOST));
        assertTrue(gone.canJudge(remote, "1-aa", null));
    }

    // --- what the periodic forgetting keeps ---

    @Test
    void forgettingAgedOutEntriesKeepsEvidenceYoungerThanItsAge() {
        clock.tick(Duration.ofDays(3));
        probe.then(OWNER, ACCEPTED);
        gone.learn(OWNER, INSTANCE);
        // Half the evidence's life later, the poll thread asks about some slot: the sweep runs then.
        clock.tick(GoneOwners.EVIDENCE_AGE.dividedBy(2));
        gone.canJudge(new NodeId("10.0.0.6", 7700), INSTANCE, HOST);

        assertTrue(gone.seenAccepting(OWNER, INSTANCE));
        probe.then(OWNER, REFUSED, REFUSED);
        assertTrue(verdict(gone, OWNER, INSTANCE).isPresent(), "the young acceptance still proves the path");
    }

    @Test
    void aSlotLookedAtWithoutLearningStillLetsAgedOutEntriesGo() {
        probe.then(OWNER, ACCEPTED);
        gone.learn(OWNER, INSTANCE);
        gone.canJudge(OWNER, INSTANCE, HOST);
        assertEquals(2, gone.remembered(), "the acceptance and the address's locality");

        // The owner's slots are gone from view: only canJudge is called, for other slots' owners.
        clock.tick(GoneOwners.EVIDENCE_AGE);
        gone.canJudge(OWNER, INSTANCE, HOST);

        assertEquals(1, gone.remembered(), "only the locality just looked up again");
    }

    @Test
    void aRetryMarkHoldsAnOwnerBackAcrossASweepForItsFullInterval() {
        // The sweep runs at its own cadence: a mark set just before it must survive it.
        clock.tick(GoneOwners.RETRY.minusSeconds(10));
        probe.always(OWNER, TIMEOUT);
        gone.learn(OWNER, INSTANCE);
        clock.tick(Duration.ofSeconds(10));
        gone.canJudge(new NodeId("10.0.0.6", 7700), INSTANCE, HOST);
        clock.tick(Duration.ofSeconds(10));

        gone.learn(OWNER, INSTANCE);

        assertEquals(1, probe.probesOf(OWNER), "tried 20 s ago: not again before the retry interval");
    }

    @Test
    void anOwnerThatHasNotAcceptedIsTriedOnceARetryIntervalHoweverLongTheNodeHasRun() {
        clock.tick(Duration.ofDays(3));
        probe.always(OWNER, TIMEOUT);
        gone.canJudge(OWNER, INSTANCE, HOST);
        clock.tick(Duration.ofSeconds(20));
        gone.learn(OWNER, INSTANCE);
        gone.learn(OWNER, INSTANCE);
        assertEquals(1, probe.probesOf(OWNER));
        // A sweep in between, as the poll thread looks at other slots: the mark is younger than the interval.
        clock.tick(Duration.ofSeconds(15));
        gone.canJudge(new NodeId("10.0.0.6", 7700), INSTANCE, HOST);

        // Exactly a retry interval after the try: tried again.
        clock.tick(Duration.ofSeconds(15));
        gone.learn(OWNER, INSTANCE);
        assertEquals(2, probe.probesOf(OWNER));
    }

    @Test
    void evidenceOfAnOwnerThatAcceptedIsNotRenewedBeforeTheRetryIntervalHoweverLongTheNodeHasRun() {
        clock.tick(Duration.ofDays(3));
        probe.always(OWNER, ACCEPTED);
        gone.learn(OWNER, INSTANCE);
        clock.tick(GoneOwners.RETRY.minusNanos(1));
        gone.learn(OWNER, INSTANCE);

        assertEquals(1, probe.probesOf(OWNER), "a timely owner costs one connect per retry interval");
    }
}
