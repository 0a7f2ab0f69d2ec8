package io.standby.node.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/observability's alert rules and dashboard queries, as Prometheus reads them: {@code promtool check rules},
 * {@code promtool test rules} on standby-alerts.test.yaml (each alert fires on the series that should fire it and stays
 * quiet on the others), and every dashboard query parsed as PromQL. The promtool tests are skipped where promtool is
 * not installed (Debian: {@code apt-get install prometheus}); the Kubernetes copy of the rules is checked everywhere.
 */
class AlertRulesTest {

    static final Path RULE_TESTS = Path.of("deploy/observability/standby-alerts.test.yaml");
    static final Path OPERATOR_RULES = Path.of("deploy/kubernetes/monitoring/prometheus-rule.yaml");

    @Test
    void promtoolChecksTheRules() throws Exception {
        String out = promtool("check", "rules", OperatorKitTest.RULES.toString());
        assertTrue(out.contains("SUCCESS: " + OperatorKitTest.alerts().size() + " rules found"), out);
    }

    @Test
    void promtoolTestsEveryAlertFiringAndQuiet() throws Exception {
        String out = promtool("test", "rules", RULE_TESTS.toString());
        assertTrue(out.contains("SUCCESS"), out);
    }

    /** A rule nobody tests could be silent for good: every alert is expected to fire in at least one case. */
    @Test
    @SuppressWarnings("unchecked")
    void everyAlertHasACaseWhereItFires() throws IOException {
        Map<String, Object> file =
                new Yaml().load(Files.readString(OperatorKitTest.root().resolve(RULE_TESTS)));
        Set<String> fired = new TreeSet<>();
        for (Map<String, Object> test : (List<Map<String, Object>>) file.get("tests")) {
            for (Map<String, Object> check : (List<Map<String, Object>>) test.get("alert_rule_test")) {
                if (!((List<?>) check.get("exp_alerts")).isEmpty()) {
                    fired.add((String) check.get("alertname"));
                }
            }
        }
        Set<String> alerts = new TreeSet<>();
        OperatorKitTest.alerts().forEach(alert -> alerts.add((String) alert.get("alert")));
        assertEquals(alerts, fired);
    }

    /** Grafana's variables replaced by what they stand for, each panel's queries go through promtool as rules. */
    @Test
    void everyDashboardQueryIsPromQl(@TempDir Path dir) throws Exception {
        Document dashboard =
                Document.parse(Files.readString(OperatorKitTest.root().resolve(OperatorKitTest.DASHBOARD)));
        List<Document> rules = new ArrayList<>();
        for (Document panel : dashboard.getList("panels", Document.class)) {
            for (Document target : panel.getList("targets", Document.class, List.of())) {
                String expr = target.getString("expr")
                        .replace("$__rate_interval", "1m")
                        .replace("$job", ".+");
                rules.add(new Document("record", "dashboard:panel" + panel.getInteger("id") + ":" + target.get("refId"))
                        .append("expr", expr));
            }
        }
        // JSON is YAML: promtool reads the document as it is.
        Path file = dir.resolve("dashboard-rules.yaml");
        Files.writeString(
                file,
                new Document("groups", List.of(new Document("name", "dashboard").append("rules", rules))).toJson());
        String out = promtool("check", "rules", file.toString());
        assertTrue(out.contains("SUCCESS: " + rules.size() + " rules found"), out);
    }

    @Test
    @SuppressWarnings("unchecked")
    void theOperatorsPrometheusRuleCarriesTheSameGroups() throws IOException {
        Map<String, Object> rules =
                new Yaml().load(Files.readString(OperatorKitTest.root().resolve(OperatorKitTest.RULES)));
        Map<String, Object> resource =
                new Yaml().load(Files.readString(OperatorKitTest.root().resolve(OPERATOR_RULES)));
        assertEquals("PrometheusRule", resource.get("kind"));
        assertEquals(rules.get("groups"), ((Map<String, Object>) resource.get("spec")).get("groups"));
    }

    /** Runs promtool in the repository's root and returns what it printed; fails on a non-zero exit. */
    private static String promtool(String... args) throws IOException, InterruptedException {
        Path promtool = onPath("promtool");
        assumeTrue(
                promtool != null,
                "promtool is not on PATH (Debian: apt-get install prometheus): the rules are not checked here");
        List<String> command = new ArrayList<>(List.of(promtool.toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command)
                .directory(OperatorKitTest.root().toFile())
                .redirectErrorStream(true)
                .start();
        // Read before waiting: a full pipe would stall promtool.
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "promtool " + String.join(" ", args) + " ended");
        assertEquals(0, process.exitValue(), "promtool " + String.join(" ", args) + ":\n" + out);
        return out;
    }

    private static Path onPath(String command) {
        for (String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(entry, command);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
