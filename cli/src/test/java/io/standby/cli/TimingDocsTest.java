package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.SlotTiming;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The timing numbers that the docs state, computed from {@link SlotTiming} and the command line's own defaults: a
 * default or a factor of the timing rules that changes in the code fails here until every page that states it says the
 * new number. Each expected sentence is built from the code's values, not written out.
 */
class TimingDocsTest {

    private static final SlotTiming DEFAULTS = SlotTiming.defaults();

    @Test
    void theNodeCommandsDefaultsAreSlotTimings() {
        for (String variable : List.of("STANDBY_HEARTBEAT", "STANDBY_LEASE", "STANDBY_POLL")) {
            Assumptions.assumeTrue(System.getenv(variable) == null, variable + " is set here");
        }
        CommandLine.Model.CommandSpec node =
                StandbyCli.commandLine("node").getSubcommands().get("node").getCommandSpec();
        assertEquals(DEFAULTS.heartbeat(), defaultOf(node, "--heartbeat"));
        assertEquals(DEFAULTS.lease(), defaultOf(node, "--lease"));
        assertEquals(DEFAULTS.poll(), defaultOf(node, "--poll"));
    }

    @Test
    void theReadmeStatesTheDefaultsAndTheFactorsOfTheRules() throws IOException {
        String readme = read("README.md");
        assertContains(
                readme,
                "[--heartbeat " + words(DEFAULTS.heartbeat()) + "] [--lease " + words(DEFAULTS.lease()) + "] [--poll "
                        + words(DEFAULTS.poll()) + "]");
        assertContains(
                readme,
                "| `" + words(DEFAULTS.heartbeat()) + "`, `" + words(DEFAULTS.lease()) + "`, `" + words(DEFAULTS.poll())
                        + "` |");
        assertContains(readme, "late mark the owner wrote: " + lateFactor() + " heartbeats");
        assertContains(
                readme, "(`" + pauseFactor() + " × heartbeat`: " + seconds(pause(DEFAULTS)) + " at the defaults)");
        assertEquals(DEFAULTS.lease().dividedBy(10), DEFAULTS.fenceMargin(), "the fence margin is a tenth");
        assertContains(readme, "`lease − lease/10`");
        assertContains(
                readme, "(" + seconds(fence(DEFAULTS)) + " at the default " + seconds(DEFAULTS.lease()) + " lease)");
        assertTrue(
                fence(DEFAULTS).compareTo(Duration.ofSeconds(12)) > 0,
                "the defaults ride through a typical 12 s election, as the README says");
    }

    @Test
    void theKubernetesBaseStatesTheDefaultsItRuns() throws IOException {
        String kubernetes = read("deploy/kubernetes/README.md");
        assertContains(
                kubernetes,
                "`--heartbeat=" + words(DEFAULTS.heartbeat()) + " --lease=" + words(DEFAULTS.lease()) + " --poll="
                        + words(DEFAULTS.poll()) + " ");
        assertContains(kubernetes, "`lease − lease/10` = " + seconds(fence(DEFAULTS)));
        assertContains(kubernetes, "1.8 × heartbeat = " + seconds(pause(DEFAULTS)));
    }

    @Test
    void theElectionPagesComputeTheirPausesFromTheRules() throws IOException {
        SlotTiming compose = composeTiming();
        String mongodb = read("docs/MONGODB.md");
        assertContains(
                mongodb,
                "`lease − lease/10` without an acknowledged renewal (" + seconds(fence(DEFAULTS))
                        + " at the defaults)");
        assertContains(
                mongodb,
                "`" + pauseFactor() + " × heartbeat` (its late mark less a tenth: " + seconds(pause(DEFAULTS))
                        + " at the defaults, " + seconds(pause(compose)) + " at `--heartbeat "
                        + words(compose.heartbeat()) + "`)");
        assertContains(
                mongodb,
                "`--heartbeat " + words(compose.heartbeat()) + " --lease " + words(compose.lease())
                        + " --no-fast-failover` (" + seconds(fence(compose)) + ")");
        String docker = read("docker/README.md");
        assertContains(docker, "`" + pauseFactor() + " × heartbeat` = " + seconds(pause(compose)));
        assertContains(docker, "`lease − lease/10` = " + seconds(fence(compose)));
    }

    /** How long without an acknowledged renewal before an owner with fast failover pauses its robots. */
    private static Duration pause(SlotTiming timing) {
        return timing.late().minus(timing.lateMargin());
    }

    private static Duration fence(SlotTiming timing) {
        return timing.lease().minus(timing.fenceMargin());
    }

    private static String pauseFactor() {
        return ratio(pause(DEFAULTS), DEFAULTS.heartbeat());
    }

    private static String lateFactor() {
        return ratio(DEFAULTS.late(), DEFAULTS.heartbeat());
    }

    private static String ratio(Duration a, Duration b) {
        return BigDecimal.valueOf(a.toMillis())
                .divide(BigDecimal.valueOf(b.toMillis()))
                .stripTrailingZeros()
                .toPlainString();
    }

    /** 3.6 s, 18 s: as the docs write seconds. */
    private static String seconds(Duration duration) {
        return BigDecimal.valueOf(duration.toMillis(), 3).stripTrailingZeros().toPlainString() + " s";
    }

    /** 2s, 500ms: as the command line takes a duration. */
    private static String words(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + "s" : duration.toMillis() + "ms";
    }

    /** The timing of docker/compose.yaml's nodes, from its first node's command. */
    private static SlotTiming composeTiming() throws IOException {
        String compose = read("docker/compose.yaml");
        return SlotTiming.of(flag(compose, "--heartbeat"), flag(compose, "--lease"), flag(compose, "--poll"));
    }

    private static Duration flag(String text, String name) {
        Matcher m = Pattern.compile("\"" + name + "\", \"([^\"]+)\"").matcher(text);
        assertTrue(m.find(), name + " in docker/compose.yaml");
        return new DurationConverter().convert(m.group(1));
    }

    private static Duration defaultOf(CommandLine.Model.CommandSpec command, String option) {
        return new DurationConverter().convert(command.findOption(option).defaultValue());
    }

    /** The page with every run of white space as one blank, so that where a line wraps does not matter. */
    private static String read(String path) throws IOException {
        return Files.readString(HouseRulesTest.root().resolve(path)).replaceAll("\\s+", " ");
    }

    private static void assertContains(String text, String expected) {
        assertTrue(text.contains(expected), () -> "the page should say: " + expected);
    }
}
