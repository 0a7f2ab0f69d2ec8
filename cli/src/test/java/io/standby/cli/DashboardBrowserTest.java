package io.standby.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.admin.RobotTable;
import io.standby.robot.model.RobotState;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.NodeTable;
import io.standby.slot.NodeView;
import io.standby.slot.SlotState;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dashboard in a real browser against a real cluster: three node processes, two slots, four counter robots. The
 * page must show what the slot documents say, and follow a takeover by itself: no reload.
 */
class DashboardBrowserTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final int ROBOTS = 4;
    /** Each slot row as the page shows it: id, owner, epoch, and its change mark. */
    private static final String READ_SLOTS = """
            return Array.from(document.querySelectorAll('[data-slot]')).map(row => ({
              slot: row.dataset.slot,
              owner: row.querySelector('.owner').textContent,
              epoch: row.querySelector('.epoch').textContent,
              changed: row.classList.contains('changed'),
              marker: row.querySelector('.marker') ? row.querySelector('.marker').textContent : ''
            }));""";

    /** The nodes, their logs (chromedriver's too), kept when the test fails. */
    @RegisterExtension
    final NodeProcesses nodes = new NodeProcesses();

    private HeadlessChromium browser;

    /** One slot row of the page. */
    record SlotRow(String slot, String owner, long epoch, boolean changed, String marker) {}

    @BeforeEach
    void setUp() {
        HeadlessChromium.assumeInstalled();
        nodes.onFailure(() -> {
            if (browser != null) {
                System.out.println("----- page\n" + browser.script("return document.body.innerText"));
                try {
                    browser.screenshot(module().resolve("target/dashboard.png"));
                } catch (java.io.IOException e) {
                    System.out.println("----- no screenshot: " + e);
                }
            }
        });
    }

    @AfterEach
    void closeBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    @Test
    void thePageShowsTheOwnersTheSlotDocumentsHoldAndFollowsATakeoverWithoutAReload() throws Exception {
        new SlotTable(nodes.admin()).init(2);
        List<Integer> ports = StandbyProcess.freePorts(3);
        for (int port : ports) {
            node(port);
        }
        await().atMost(WAIT).until(() -> owned().size() == 2);
        for (int i = 1; i <= ROBOTS; i++) {
            CliRun added = CliRun.against(
                    nodes.db(), "robot", "add", "c" + i, "--type", "counter", "--config", "intervalMs=200");
            assertEquals(0, added.exitCode(), added.err());
        }
        List<Integer> owners = owned().stream().map(slot -> slot.owner().port()).toList();
        int page = owners.get(0);
        int victim = owners.get(1);

        browser = HeadlessChromium.start(nodes.dir());
        browser.open("http://127.0.0.1:" + page + "/");
        await("the page shows every slot owned, by the owner and at the epoch of its document")
                .atMost(WAIT)
                .pollInterval(POLL)
                .until(() -> {
                    Map<String, SlotRow> shown = pageSlots();
                    return shown.size() == 2
                            && shown.values().stream()
                                    .noneMatch(row -> row.owner().equals("–"))
                            && ownersAndEpochs(shown).equals(ownersAndEpochs(documents()));
                });
        await("the page shows every robot running")
                .atMost(WAIT)
                .pollInterval(POLL)
                .until(() -> allRobotsRunning() && ("all " + ROBOTS + " running").equals(text("robots-summary")));
        await("the page lists every robot with the slot, state and node of its document")
                .atMost(WAIT)
                .pollInterval(POLL)
                .until(() -> pageRobots().equals(robotDocuments()));
        filter("c3");
        assertEquals(List.of("c3"), List.copyOf(pageRobots().keySet()), "the filter keeps the robots it names");
        String slotOfC1 = robotDocuments().get("c1").split(" ")[0];
        filter(slotOfC1);
        assertEquals(
                robotDocuments().entrySet().stream()
                        .filter(e -> e.getValue().startsWith(slotOfC1 + " "))
                        .map(Map.Entry::getKey)
                        .toList(),
                List.copyOf(pageRobots().keySet()),
                "filtered by slot");
        filter("");
        assertEquals(ROBOTS, pageRobots().size());

        SlotView before = owned().stream()
                .filter(slot -> slot.owner().port() == victim)
                .findFirst()
                .orElseThrow();
        browser.script("window.__marker = 1");
        nodes.get(victim).kill9();

        AtomicReference<SlotRow> takenOver = new AtomicReference<>();
        await("the page shows " + before.id() + " owned by another node at a higher epoch")
                .atMost(WAIT)
                .pollInterval(POLL)
                .until(() -> {
                    SlotRow row = pageSlots().get(before.id());
                    boolean moved = row != null
                            && row.epoch() > before.epoch()
                            && !row.owner().equals(before.owner().toString())
                            && !row.owner().equals("–");
                    takenOver.set(row);
                    return moved;
                });
        SlotRow row = takenOver.get();
        assertEquals(1L, browser.script("return window.__marker"), "the same page, never reloaded");
        assertTrue(row.changed(), "the change is highlighted: " + row);
        assertTrue(row.marker().contains("new owner (was " + before.owner() + ")"), row.marker());
        SlotView after = new SlotTable(nodes.admin()).get(before.id()).orElseThrow();
        assertEquals(after.owner().toString(), row.owner(), "the owner of the slot's document");
        assertEquals(after.epoch(), row.epoch(), "the epoch of the slot's document");
        assertNotEquals(page, after.owner().port());
        await("a takeover event from the killed node at the top of the events")
                .atMost(WAIT)
                .pollInterval(POLL)
                .until(() -> browser.script("""
                        const event = document.querySelector('#events li[data-type="took-over"]');
                        return event ? event.textContent : '';""").toString().contains(before.id()));
        String event = browser.script(
                        "return document.querySelector('#events li[data-type=\"took-over\"]').textContent")
                .toString();
        assertTrue(event.contains(after.owner() + ": from " + before.owner()), event);

        // Back as a standby, so the screenshot shows a full cluster: two owners, a standby, robots and events.
        node(victim).awaitOutput("started", WAIT);
        AtomicReference<NodeView> back = new AtomicReference<>();
        await("the restarted node stands by").atMost(WAIT).pollInterval(POLL).until(() -> {
            back.set(new NodeTable(nodes.admin())
                    .get(new NodeId("127.0.0.1", victim))
                    .orElse(null));
            return back.get() != null && back.get().state() == NodeState.STANDBY;
        });
        await("the page shows it standing by, and every robot running again")
                .atMost(WAIT)
                .pollInterval(POLL)
                .until(() -> allRobotsRunning()
                        && ("all " + ROBOTS + " running").equals(text("robots-summary"))
                        && pageReadClusterAfter(back.get().time())
                        && isStandingBy(victim));
        assertEquals(1L, browser.script("return window.__marker"), "still the same page");
        screenshot();
    }

    /** Whether the page shows the node on this port as a standby. */
    private boolean isStandingBy(int port) {
        return browser.script("""
                        const row = document.querySelector('[data-node="127.0.0.1:%d"]');
                        return row !== null && row.classList.contains('role-standby');""".formatted(port)).equals(true);
    }

    private ChildJvm node(int port) throws Exception {
        return nodes.node(port, "--heartbeat", "200ms", "--lease", "1s", "--poll", "200ms", "--max-slots", "1");
    }

    private List<SlotView> owned() {
        return new SlotTable(nodes.admin())
                .list().stream().filter(slot -> slot.state() == SlotState.OWNED).toList();
    }

    private Map<String, SlotRow> documents() {
        Map<String, SlotRow> rows = new TreeMap<>();
        for (SlotView slot : new SlotTable(nodes.admin()).list()) {
            rows.put(
                    slot.id(),
                    new SlotRow(
                            slot.id(), slot.owner() == null ? "–" : slot.owner().toString(), slot.epoch(), false, ""));
        }
        return rows;
    }

    @SuppressWarnings("unchecked")
    private Map<String, SlotRow> pageSlots() {
        Map<String, SlotRow> rows = new TreeMap<>();
        for (Map<String, Object> row : (List<Map<String, Object>>) browser.script(READ_SLOTS)) {
            String slot = (String) row.get("slot");
            rows.put(
                    slot,
                    new SlotRow(
                            slot,
                            (String) row.get("owner"),
                            Long.parseLong((String) row.get("epoch")),
                            (Boolean) row.get("changed"),
                            (String) row.get("marker")));
        }
        return rows;
    }

    private static Map<String, String> ownersAndEpochs(Map<String, SlotRow> rows) {
        Map<String, String> result = new TreeMap<>();
        rows.forEach((slot, row) -> result.put(slot, row.owner() + " at epoch " + row.epoch()));
        return result;
    }

    private String text(String id) {
        return String.valueOf(
                browser.script("const e = document.getElementById('" + id + "'); return e ? e.textContent : '';"));
    }

    /** Each robot row of the page: id, then slot, state and node. */
    @SuppressWarnings("unchecked")
    private Map<String, String> pageRobots() {
        Map<String, String> rows = new TreeMap<>();
        for (List<String> row : (List<List<String>>) browser.script("""
                return Array.from(document.querySelectorAll('#robots [data-robot]'))
                  .map(row => Array.from(row.cells).slice(0, 4).map(cell => cell.textContent));""")) {
            rows.put(row.get(0), row.get(1) + " " + row.get(2).toUpperCase() + " " + row.get(3));
        }
        return rows;
    }

    /** The same from the robot documents. */
    private Map<String, String> robotDocuments() {
        Map<String, String> rows = new TreeMap<>();
        new RobotTable(nodes.admin())
                .list(null)
                .forEach(robot -> rows.put(
                        robot.id(),
                        robot.slotId() + " " + robot.state().name() + " "
                                + (robot.node() == null ? "–" : robot.node())));
        return rows;
    }

    /** Types into the robots' filter, as a person would: the list follows at once, without waiting for a refresh. */
    private void filter(String text) {
        browser.script("""
                const input = document.getElementById('robot-filter');
                input.value = arguments[0];
                input.dispatchEvent(new Event('input'));""", text);
    }

    private boolean allRobotsRunning() {
        return new RobotTable(nodes.admin())
                        .list(null).stream()
                                .filter(robot -> robot.state() == RobotState.RUNNING)
                                .count()
                == ROBOTS;
    }

    /** Whether the view the page shows was read after {@code time}. */
    private boolean pageReadClusterAfter(Instant time) {
        Object readAt = browser.script("return document.getElementById('cluster').dataset.readAt || null");
        return readAt != null && Instant.parse(readAt.toString()).isAfter(time);
    }

    /**
     * To target/dashboard.png (as when the test fails); to the repository's docs/ as well with
     * -Dstandby.docs.screenshot=true.
     */
    private void screenshot() throws Exception {
        browser.screenshot(module().resolve("target/dashboard.png"));
        if (Boolean.getBoolean("standby.docs.screenshot")) {
            browser.screenshot(module().resolveSibling("docs").resolve("dashboard.png"));
        }
    }

    /** The cli module's directory, where surefire runs the test. */
    private static Path module() {
        return Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
    }
}
