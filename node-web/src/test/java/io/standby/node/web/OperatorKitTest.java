package io.standby.node.web;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.standby.node.StandbyNode;
import io.standby.robot.admin.RobotTable;
import io.standby.robot.runtime.RobotTypes;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import io.standby.testing.TestPorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/observability against a real node: every metric the Grafana dashboard and the Prometheus alert rules query is
 * one that a node owning a slot and running a robot serves at {@code /metrics}, so that a renamed meter cannot leave a
 * panel empty or an alert silent without failing the build. The rules' behaviour is {@link AlertRulesTest}'s.
 */
class OperatorKitTest {

    static final Path DASHBOARD = Path.of("deploy/observability/standby-dashboard.json");
    static final Path RULES = Path.of("deploy/observability/standby-alerts.yaml");

    private static final SlotTiming TIMING =
            SlotTiming.of(Duration.ofMillis(200), Duration.ofMillis(1500), Duration.ofMillis(200));
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Series Prometheus makes itself for every target, never in a node's text. */
    private static final Set<String> SCRAPE_SERIES = Set.of("up");

    private static final Pattern LABEL_VALUES =
            Pattern.compile("label_values\\(\\s*([a-zA-Z_:][\\w:]*)\\s*(?:\\{[^}]*})?\\s*,");
    private static final Pattern GROUPING =
            Pattern.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.$])[a-zA-Z_:][\\w:]*(?!\\w)(\\s*\\()?");
    private static final Set<String> KEYWORDS =
            Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "inf", "nan");

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    @Test
    void everyMetricTheDashboardAndTheAlertsQueryIsServedByANode() throws Exception {
        Set<String> served = servedByANodeWithASlotAndARobot();
        Map<String, List<String>> queried = queried();
        assertFalse(queried.isEmpty());
        List<String> missing = new ArrayList<>();
        queried.forEach((name, where) -> {
            if (!served.contains(name) && !SCRAPE_SERIES.contains(name)) {
                missing.add(name + " (in " + where + ")");
            }
        });
        assertEquals(List.of(), missing, "not in a node's /metrics:\n" + new TreeSet<>(served));
    }

    @Test
    void theDashboardImportsWithAPrometheusDataSourceChosenAtImport() throws IOException {
        Document dashboard = Document.parse(Files.readString(root().resolve(DASHBOARD)));
        Document input = dashboard.getList("__inputs", Document.class).getFirst();
        assertEquals("DS_PROMETHEUS", input.getString("name"));
        assertEquals("prometheus", input.getString("pluginId"));
        Document variable = dashboard.get("templating", Document.class).getList("list", Document.class).stream()
                .filter(v -> "DS_PROMETHEUS".equals(v.getString("name")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("a DS_PROMETHEUS variable, for provisioning without import"));
        assertEquals("datasource", variable.getString("type"));
        Set<Integer> ids = new HashSet<>();
        for (Document panel : panels(dashboard)) {
            assertTrue(ids.add(panel.getInteger("id")), "panel ids are unique: " + panel.getInteger("id"));
            if (!"row".equals(panel.getString("type"))) {
                assertEquals(
                        "${DS_PROMETHEUS}",
                        panel.get("datasource", Document.class).getString("uid"),
                        panel.getString("title"));
                assertFalse(panel.getList("targets", Document.class).isEmpty(), panel.getString("title"));
            }
        }
    }

    @Test
    void everyAlertSaysHowBadItIsAndWhatToDo() throws IOException {
        List<Map<String, Object>> alerts = alerts();
        assertFalse(alerts.isEmpty());
        for (Map<String, Object> alert : alerts) {
            String name = String.valueOf(alert.get("alert"));
            @SuppressWarnings("unchecked")
            Map<String, String> labels = (Map<String, String>) alert.get("labels");
            @SuppressWarnings("unchecked")
            Map<String, String> annotations = (Map<String, String>) alert.get("annotations");
            assertTrue(Set.of("critical", "warning", "info").contains(labels.get("severity")), name);
            assertFalse(annotations.getOrDefault("summary", "").isBlank(), name + ": a summary");
            assertFalse(annotations.getOrDefault("description", "").isBlank(), name + ": a description");
        }
    }

    private Set<String> servedByANodeWithASlotAndARobot() throws Exception {
        StandbyDatabase admin = database.connection();
        new SlotTable(admin).init(1);
        RobotTable robots = new RobotTable(admin);
        robots.add(new RobotTable.NewRobot("t1", "ticker", "slot-0", 0, 1, new Document()), OptionalDouble.empty());
        int port = TestPorts.free();
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try (StandbyNode ignored = StandbyNode.builder()
                .mongo(TestMongo.uri())
                .database(database.name())
                .node("127.0.0.1", port)
                .timing(TIMING)
                .stopTimeout(Duration.ofSeconds(2))
                .robotTypes(RobotTypes.of(new Ticker()))
                .extension(StandbyMetrics.of(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)))
                .start()) {
            // Owned, renewed and checkpointed: the histograms have counts and the labelled gauges their values.
            await().atMost(WAIT)
                    .until(() ->
                            robots.list(null).stream().allMatch(r -> r.context().get("ticks", 0L) >= 3));
            String text = http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            assertTrue(text.contains("standby_cluster_slots{state=\"owned\"} 1.0"), text);
            return sampleNames(text);
        }
    }

    /**
     * The names of the samples in Prometheus' text: histograms as their {@code _bucket}, {@code _count}, {@code _sum}.
     */
    static Set<String> sampleNames(String text) {
        Set<String> names = new TreeSet<>();
        text.lines()
                .filter(line -> !line.isBlank() && !line.startsWith("#"))
                .forEach(line -> names.add(line.split("[{ ]", 2)[0]));
        return names;
    }

    /** Every metric name the dashboard's and the rules' queries use, with where. */
    static Map<String, List<String>> queried() throws IOException {
        Map<String, List<String>> names = new java.util.TreeMap<>();
        Document dashboard = Document.parse(Files.readString(root().resolve(DASHBOARD)));
        for (Document panel : panels(dashboard)) {
            for (Document target : panel.getList("targets", Document.class, List.of())) {
                for (String name : metricNames(target.getString("expr"))) {
                    names.computeIfAbsent(name, n -> new ArrayList<>()).add("panel " + panel.getString("title"));
                }
            }
        }
        for (Document variable : dashboard.get("templating", Document.class).getList("list", Document.class)) {
            Object query = variable.get("query");
            String text = query instanceof Document q ? q.getString("query") : String.valueOf(query);
            Matcher m = LABEL_VALUES.matcher(text == null ? "" : text);
            while (m.find()) {
                names.computeIfAbsent(m.group(1), n -> new ArrayList<>()).add("variable " + variable.get("name"));
            }
        }
        for (Map<String, Object> alert : alerts()) {
            for (String name : metricNames(String.valueOf(alert.get("expr")))) {
                names.computeIfAbsent(name, n -> new ArrayList<>()).add("alert " + alert.get("alert"));
            }
        }
        return names;
    }

    /**
     * The metric names in a PromQL expression: its identifiers, less label matchers, ranges, strings, the labels of
     * {@code by (...)} and its kin, functions and aggregations (an identifier before a parenthesis) and keywords.
     */
    static Set<String> metricNames(String expr) {
        String bare = expr.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"")
                .replaceAll("\\{[^}]*}", " ")
                .replaceAll("\\[[^]]*]", " ");
        bare = GROUPING.matcher(bare).replaceAll(" ");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(bare);
        while (m.find()) {
            String identifier = m.group().replaceAll("[\\s(]", "");
            if (m.group(1) == null && !KEYWORDS.contains(identifier.toLowerCase())) {
                names.add(identifier);
            }
        }
        return names;
    }

    @Test
    void metricNamesAreReadOutOfPromQl() {
        assertEquals(
                Set.of("standby_lease_renewals_seconds_bucket"),
                metricNames("histogram_quantile(0.99, sum by (le, instance) "
                        + "(rate(standby_lease_renewals_seconds_bucket{job=~\"$job\"}[$__rate_interval])))"));
        assertEquals(
                Set.of("standby_slots_owned", "standby_cluster_slots"),
                metricNames("standby_slots_owned == 0 and on (job, instance) "
                        + "(sum by (job, instance) (standby_cluster_slots{state=~\"free|expired\"}) > 0)"));
        assertEquals(Set.of("up"), metricNames("absent(up{job=~\"standby.*\"}) or up offset 5m == bool 0"));
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> alerts() throws IOException {
        Map<String, Object> file = new Yaml().load(Files.readString(root().resolve(RULES)));
        List<Map<String, Object>> alerts = new ArrayList<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) file.get("groups")) {
            alerts.addAll((List<Map<String, Object>>) group.get("rules"));
        }
        return alerts;
    }

    /** The panels, those inside collapsed rows included. */
    private static List<Document> panels(Document dashboard) {
        List<Document> panels = new ArrayList<>();
        for (Document panel : dashboard.getList("panels", Document.class)) {
            panels.add(panel);
            panels.addAll(panel.getList("panels", Document.class, List.of()));
        }
        return panels;
    }

    /** The repository's root: the first directory upwards that holds deploy/observability. */
    static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("deploy/observability"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException(
                    "no deploy/observability above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }
}
