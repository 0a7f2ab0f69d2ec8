package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.standby.slot.SlotTiming;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import picocli.CommandLine.ParseResult;

/**
 * deploy/kubernetes, read as kustomize renders it (and compared with {@code kubectl kustomize} where kubectl is
 * installed), so that what its README promises cannot drift: the node's address is its pod's IP at a fixed port, probes
 * go to the pod, the grace period outlasts the node's stop, a disruption budget, requests and limits, a non-root user
 * on a read-only root filesystem, the MongoDB URI from a Secret, a Job for the slots, and a metrics port a
 * ServiceMonitor can select. No cluster is needed.
 *
 * <p>The overlays and components (production, a second install beside it, plugins) use kustomize's transformers, which
 * the small reader here does not imitate: their checks render them with {@code kubectl kustomize}, offline, and are
 * skipped, saying so, where kubectl is missing. The base and the network policy's file are read without it.
 */
class KubernetesManifestsTest {

    private static final String POD_IP = "10.244.1.7";

    /** The installs an operator may apply besides the base, each rendered by kustomize. */
    private static final List<String> OVERLAYS =
            List.of("dev", "production", "examples/second-install", "examples/plugins");

    private static Path dir(String name) {
        return HouseRulesTest.root().resolve("deploy/kubernetes").resolve(name);
    }

    /**
     * The documents kustomize renders for a kustomization of plain resources (files, or directories with their own
     * kustomization), by "Kind/name". Anything else would need kustomize itself, so it fails.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Map<String, Object>> render(Path dir) throws IOException {
        Map<String, Object> kustomization = new Yaml().load(Files.readString(dir.resolve("kustomization.yaml")));
        assertEquals(
                Set.of("apiVersion", "kind", "resources"),
                kustomization.keySet(),
                dir + ": plain resources only, which this rendering covers");
        Map<String, Map<String, Object>> documents = new LinkedHashMap<>();
        for (String resource : (List<String>) kustomization.get("resources")) {
            Path path = dir.resolve(resource).normalize();
            if (Files.isDirectory(path)) {
                render(path).forEach((key, document) -> assertNull(documents.put(key, document), "one " + key));
                continue;
            }
            for (Object loaded : new Yaml().loadAll(Files.readString(path))) {
                if (loaded != null) {
                    Map<String, Object> document = (Map<String, Object>) loaded;
                    assertNull(documents.put(key(document), document), "one " + key(document));
                }
            }
        }
        return documents;
    }

    private static String key(Map<String, Object> document) {
        return document.get("kind") + "/" + map(document, "metadata").get("name");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object parent, String... path) {
        Object current = parent;
        for (String step : path) {
            assertTrue(current instanceof Map, "a map at " + step + " in " + String.join(".", path));
            current = ((Map<String, Object>) current).get(step);
        }
        assertTrue(current instanceof Map, String.join(".", path) + " is a map: " + current);
        return (Map<String, Object>) current;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object parent, String... path) {
        String[] head = java.util.Arrays.copyOf(path, path.length - 1);
        Object value = (head.length == 0 ? (Map<String, Object>) parent : map(parent, head)).get(path[path.length - 1]);
        assertTrue(value instanceof List, String.join(".", path) + " is a list: " + value);
        return (List<Map<String, Object>>) value;
    }

    private static Map<String, Object> only(List<Map<String, Object>> items) {
        assertEquals(1, items.size(), items.toString());
        return items.getFirst();
    }

    private static Map<String, Object> named(List<Map<String, Object>> items, String name) {
        return items.stream()
                .filter(i -> name.equals(i.get("name")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no '" + name + "' in " + items));
    }

    private static Map<String, Map<String, Object>> base() throws IOException {
        return render(dir("base"));
    }

    private static Map<String, Object> nodes() throws IOException {
        return nodes(base());
    }

    /** An install's one Deployment: the nodes, whatever suffix or prefix its name has. */
    private static Map<String, Object> nodes(Map<String, Map<String, Object>> install) {
        List<Map<String, Object>> deployments = install.values().stream()
                .filter(d -> "Deployment".equals(d.get("kind")))
                .filter(d -> "node".equals(map(d, "metadata", "labels").get("app.kubernetes.io/component")))
                .toList();
        assertEquals(1, deployments.size(), "one Deployment of nodes: " + install.keySet());
        return deployments.getFirst();
    }

    private static Map<String, Object> nodeContainer() throws IOException {
        return nodeContainer(nodes());
    }

    private static Map<String, Object> nodeContainer(Map<String, Object> deployment) {
        return named(list(deployment, "spec", "template", "spec", "containers"), "node");
    }

    private static ParseResult nodeCommand() throws IOException {
        return nodeCommand(nodes());
    }

    /** The node's command line as the image's entrypoint gets it, with $(POD_IP) as the kubelet expands it. */
    @SuppressWarnings("unchecked")
    private static ParseResult nodeCommand(Map<String, Object> deployment) {
        List<String> args = ((List<String>) nodeContainer(deployment).get("args"))
                .stream().map(a -> a.replace("$(POD_IP)", POD_IP)).toList();
        assertEquals("node", args.getFirst(), args.toString());
        ParseResult node = DockerFilesTest.leaf(DockerFilesTest.parse(args));
        assertTrue(node.unmatched().isEmpty(), args.toString());
        return node;
    }

    @Test
    void kubectlKustomizeRendersWhatTheTestReads() throws Exception {
        Map<String, Map<String, Map<String, Object>>> rendered = new LinkedHashMap<>();
        for (String name : List.of("base", "dev")) {
            rendered.put(name, render(dir(name)));
        }
        for (var plain : rendered.entrySet()) {
            assertEquals(
                    plain.getValue(),
                    kustomize(plain.getKey()),
                    plain.getKey() + ": kubectl kustomize renders the same documents");
        }
    }

    private static final Map<String, Map<String, Map<String, Object>>> KUSTOMIZED = new HashMap<>();

    /**
     * What {@code kubectl kustomize deploy/kubernetes/NAME} renders, by "Kind/name"; without kubectl the calling test
     * is skipped (an assumption), since only kustomize itself applies an overlay's transformers faithfully.
     */
    static synchronized Map<String, Map<String, Object>> kustomize(String name)
            throws IOException, InterruptedException {
        Path kubectl = onPath("kubectl");
        assumeTrue(
                kubectl != null,
                "kubectl is not on the PATH, so deploy/kubernetes/" + name + " cannot be rendered with kustomize; "
                        + "install kubectl (it renders offline) to run this check");
        if (!KUSTOMIZED.containsKey(name)) {
            Process process = new ProcessBuilder(
                            kubectl.toString(), "kustomize", dir(name).toString())
                    .redirectErrorStream(true)
                    .start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "kubectl kustomize " + name);
            assertEquals(0, process.exitValue(), out);
            Map<String, Map<String, Object>> documents = new LinkedHashMap<>();
            for (Object document : new Yaml().loadAll(out)) {
                @SuppressWarnings("unchecked")
                Map<String, Object> map = (Map<String, Object>) document;
                assertNull(documents.put(key(map), map), name + ": one " + key(map));
            }
            KUSTOMIZED.put(name, documents);
        }
        return KUSTOMIZED.get(name);
    }

    private static Path onPath(String command) {
        for (String entry :
                Objects.requireNonNullElse(System.getenv("PATH"), "").split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(entry, command);
            if (!entry.isEmpty() && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    @Test
    @SuppressWarnings("unchecked")
    void aNodesAddressIsItsPodsIpAtAFixedPortAndItsProbesGoThere() throws IOException {
        ParseResult node = nodeCommand();
        assertEquals(POD_IP, node.matchedOptionValue("--ip", ""), "--ip=$(POD_IP)");
        Map<String, Object> podIp = named(list(nodeContainer(), "env"), "POD_IP");
        assertEquals(
                "status.podIP", map(podIp, "valueFrom", "fieldRef").get("fieldPath"), "POD_IP from the downward API");

        int port = node.matchedOptionValue("--port", 0);
        Map<String, Object> http = named(list(nodeContainer(), "ports"), "http");
        assertEquals(port, http.get("containerPort"), "the container port is the node's --port");
        // Watch links on a fixed port, declared, so that a NetworkPolicy can allow it between nodes.
        assertEquals(
                node.matchedOptionValue("--watch-port", 0),
                named(list(nodeContainer(), "ports"), "watch").get("containerPort"),
                "the watch port is the node's --watch-port");
        assertEquals(
                2,
                list(nodeContainer(), "ports").size(),
                list(nodeContainer(), "ports").toString());
        String portName = (String) http.get("name");
        for (var probe : Map.of("readinessProbe", "/ready", "livenessProbe", "/health", "startupProbe", "/health")
                .entrySet()) {
            Map<String, Object> get = map(nodeContainer(), probe.getKey(), "httpGet");
            assertEquals(probe.getValue(), get.get("path"), probe.getKey());
            assertTrue(
                    portName.equals(get.get("port")) || Integer.valueOf(port).equals(get.get("port")),
                    probe.getKey() + " on the node's port");
            // Without 'host' the kubelet connects to the pod's IP, where the node listens; anything else misses it.
            assertFalse(get.containsKey("host"), probe.getKey() + " goes to the pod's IP");
        }

        // No Service stands between nodes: every Service is headless, so even a name resolves to pod IPs.
        for (var document : base().entrySet()) {
            if (document.getKey().startsWith("Service/")) {
                assertEquals(
                        "None", map(document.getValue(), "spec").get("clusterIP"), document.getKey() + " is headless");
            }
        }
        for (String arg : (List<String>) nodeContainer().get("args")) {
            assertFalse(
                    arg.startsWith("--ip=") && !arg.equals("--ip=$(POD_IP)"), "the only address is the pod's: " + arg);
        }
    }

    @Test
    void theGracePeriodOutlastsTheNodesStopAndTheTimingIsValid() throws IOException {
        ParseResult node = nodeCommand();
        assertTheGracePeriodOutlastsTheStop("base", nodes());
        SlotTiming timing = SlotTiming.of(
                node.matchedOptionValue("--heartbeat", Duration.ZERO),
                node.matchedOptionValue("--lease", Duration.ZERO),
                node.matchedOptionValue("--poll", Duration.ZERO));
        assertEquals(SlotTiming.defaults(), timing, "the node's defaults, which the README's times are derived from");
    }

    /** An overlay that patches --stop-timeout or the grace period must keep the one inside the other. */
    @Test
    void theGracePeriodOutlastsTheNodesStopInEveryOverlay() throws Exception {
        for (String overlay : OVERLAYS) {
            Map<String, Object> deployment = nodes(kustomize(overlay));
            assertTheGracePeriodOutlastsTheStop(overlay, deployment);
            // And the timing stays valid wherever an overlay sets it.
            ParseResult node = nodeCommand(deployment);
            SlotTiming.of(
                    node.matchedOptionValue("--heartbeat", Duration.ZERO),
                    node.matchedOptionValue("--lease", Duration.ZERO),
                    node.matchedOptionValue("--poll", Duration.ZERO));
        }
    }

    private static void assertTheGracePeriodOutlastsTheStop(String where, Map<String, Object> deployment) {
        Duration stop = nodeCommand(deployment).matchedOptionValue("--stop-timeout", Duration.ZERO);
        assertFalse(stop.isZero(), where + ": --stop-timeout written out");
        Number grace = (Number) map(deployment, "spec", "template", "spec").get("terminationGracePeriodSeconds");
        assertNotNull(grace, where + ": terminationGracePeriodSeconds");
        // The robots' last checkpoints, the release, the hand-over check (ADMIN_TIMEOUT), and room for the JVM.
        Duration needed = stop.plus(StandbyCli.ADMIN_TIMEOUT).plusSeconds(5);
        assertTrue(
                Duration.ofSeconds(grace.longValue()).compareTo(needed) >= 0,
                where + ": terminationGracePeriodSeconds " + grace + " >= " + needed.toSeconds() + " s");
    }

    @Test
    void moreNodesThanSlotsAndADisruptionBudgetThatKeepsEverySlotServed() throws IOException {
        int replicas = ((Number) map(nodes(), "spec").get("replicas")).intValue();
        int maxSlots = nodeCommand().matchedOptionValue("--max-slots", 0);
        int slots = slotsJobCount();
        assertTrue(
                replicas * maxSlots > slots,
                replicas + " nodes of " + maxSlots + " slot(s) for " + slots + " slots: room for a standby");

        Map<String, Object> budget = base().get("PodDisruptionBudget/standby-node");
        assertNotNull(budget, "a PodDisruptionBudget: " + base().keySet());
        assertEquals(
                map(nodes(), "spec", "selector", "matchLabels"),
                map(budget, "spec", "selector", "matchLabels"),
                "it covers the nodes");
        assertTrue(
                map(nodes(), "spec", "template", "metadata", "labels")
                        .entrySet()
                        .containsAll(
                                map(budget, "spec", "selector", "matchLabels").entrySet()),
                "its selector matches the pods");
        Object maxUnavailable = map(budget, "spec").get("maxUnavailable");
        assertEquals(1, maxUnavailable, "one node at a time");
        // With one node away, the rest still have room for every slot.
        assertTrue((replicas - 1) * maxSlots >= slots, "one node away leaves room for " + slots + " slots");

        Map<String, Object> rolling = map(nodes(), "spec", "strategy", "rollingUpdate");
        assertEquals(0, rolling.get("maxUnavailable"), "a rollout starts the new pod before it stops an old one");
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyPodHasRequestsAndLimitsAndRunsAsTheImagesUserOnAReadOnlyRootFilesystem() throws IOException {
        Matcher uid = Pattern.compile("useradd .*--uid (\\d+)")
                .matcher(Files.readString(HouseRulesTest.root().resolve("docker/Dockerfile")));
        assertTrue(uid.find(), "the image's user");
        int pods = 0;
        for (var document : base().entrySet()) {
            if (!Set.of("Deployment", "Job").contains(document.getValue().get("kind"))) {
                continue;
            }
            pods++;
            String name = document.getKey();
            Map<String, Object> pod = map(document.getValue(), "spec", "template", "spec");
            Map<String, Object> security = map(pod, "securityContext");
            assertEquals(true, security.get("runAsNonRoot"), name);
            assertEquals(Integer.parseInt(uid.group(1)), security.get("runAsUser"), name + " runs as the image's user");
            assertEquals(false, pod.get("automountServiceAccountToken"), name + " needs no API access");
            for (Map<String, Object> container : list(pod, "containers")) {
                String where = name + " " + container.get("name");
                for (String kind : List.of("requests", "limits")) {
                    Map<String, Object> resources = map(container, "resources", kind);
                    assertTrue(
                            resources.containsKey("cpu") && resources.containsKey("memory"),
                            where + " " + kind + ": " + resources);
                }
                assertEquals(
                        map(container, "resources", "requests").get("memory"),
                        map(container, "resources", "limits").get("memory"),
                        where + ": the heap is a share of the limit, so the request is the limit");
                Map<String, Object> containerSecurity = map(container, "securityContext");
                assertEquals(true, containerSecurity.get("readOnlyRootFilesystem"), where);
                assertEquals(false, containerSecurity.get("allowPrivilegeEscalation"), where);
                assertEquals(
                        List.of("ALL"), map(containerSecurity, "capabilities").get("drop"), where);
                Map<String, Object> tmp = named(list(container, "volumeMounts"), "tmp");
                assertEquals("/tmp", tmp.get("mountPath"), where);
                assertEquals("/tmp", container.get("workingDir"), where + " works where it may write");
                assertTrue(named(list(pod, "volumes"), "tmp").containsKey("emptyDir"), where + ": /tmp is an emptyDir");
                String javaOpts =
                        (String) named(list(container, "env"), "JAVA_OPTS").get("value");
                assertTrue(javaOpts.contains("-XX:MaxRAMPercentage="), where + ": " + javaOpts);

                // The database's URI only from the Secret, never written into a manifest.
                Map<String, Object> uri = named(list(container, "env"), "STANDBY_MONGO_URI");
                Map<String, Object> secret = map(uri, "valueFrom", "secretKeyRef");
                assertEquals("standby-mongo", secret.get("name"), where);
                assertEquals("uri", secret.get("key"), where);
                for (Map<String, Object> env : list(container, "env")) {
                    assertFalse(String.valueOf(env.get("value")).contains("mongodb://"), where + " " + env);
                }
                assertFalse(
                        ((List<String>) container.get("args")).stream().anyMatch(a -> a.startsWith("--mongo")), where);
            }
        }
        assertEquals(2, pods, "the nodes and the slots Job");
    }

    private static int slotsJobCount() throws IOException {
        Map<String, Object> job = base().get("Job/standby-slots-init");
        assertNotNull(job, "a Job for 'slots init': " + base().keySet());
        @SuppressWarnings("unchecked")
        List<String> args = (List<String>)
                only(list(job, "spec", "template", "spec", "containers")).get("args");
        assertEquals(List.of("slots", "init"), args.subList(0, 2), args.toString());
        ParseResult init = DockerFilesTest.leaf(DockerFilesTest.parse(args));
        assertTrue(init.unmatched().isEmpty(), args.toString());
        return init.matchedOptionValue("--count", 0);
    }

    @Test
    void theSlotsJobRetriesWithinABound() throws IOException {
        assertTrue(slotsJobCount() > 0);
        Map<String, Object> spec = map(base().get("Job/standby-slots-init"), "spec");
        assertTrue(spec.get("backoffLimit") instanceof Number tries && tries.intValue() > 0, "it tries again: " + spec);
        assertTrue(
                spec.get("activeDeadlineSeconds") instanceof Number limit && limit.intValue() > 0,
                "and gives up: " + spec);
        assertEquals(
                "Never", map(spec, "template", "spec").get("restartPolicy"), "each try a pod of its own, with its log");
    }

    @Test
    void aServiceMonitorFindsTheMetricsPort() throws IOException {
        Map<String, Object> service = base().get("Service/standby-node-metrics");
        assertNotNull(service, base().keySet().toString());
        Map<String, Object> metrics = named(list(service, "spec", "ports"), "metrics");
        assertEquals("http", metrics.get("targetPort"), "to the node's own port");
        assertEquals(
                map(nodes(), "spec", "selector", "matchLabels"), map(service, "spec", "selector"), "selects the nodes");

        Map<String, Object> monitor =
                new Yaml().load(Files.readString(dir("monitoring").resolve("service-monitor.yaml")));
        assertEquals("ServiceMonitor", monitor.get("kind"));
        assertTrue(
                map(service, "metadata", "labels")
                        .entrySet()
                        .containsAll(
                                map(monitor, "spec", "selector", "matchLabels").entrySet()),
                "the ServiceMonitor selects the metrics Service");
        Map<String, Object> endpoint = only(list(monitor, "spec", "endpoints"));
        assertEquals("metrics", endpoint.get("port"));
        assertEquals("/metrics", endpoint.get("path"));
        assertEquals(
                "/metrics",
                map(nodes(), "spec", "template", "metadata", "annotations").get("prometheus.io/path"));
    }

    @Test
    void theDevOverlayHasTheSecretTheBaseReads() throws IOException {
        Map<String, Map<String, Object>> dev = render(dir("dev"));
        assertTrue(dev.keySet().containsAll(base().keySet()), "the base, and more");
        Map<String, Object> secret = dev.get("Secret/standby-mongo");
        assertNotNull(secret, dev.keySet().toString());
        assertTrue(String.valueOf(map(secret, "stringData").get("uri")).startsWith("mongodb://"), secret.toString());
        assertEquals(
                DockerFilesTest.MONGO_IMAGE,
                only(list(dev.get("StatefulSet/mongo"), "spec", "template", "spec", "containers"))
                        .get("image"));
    }

    @Test
    void theReadmeStatesTheTimingAndGracePeriodTheManifestsUse() throws IOException {
        String readme = Files.readString(dir("").resolve("README.md"));
        ParseResult node = nodeCommand();
        List<String> stated = new ArrayList<>();
        for (String option : List.of("--heartbeat", "--lease", "--poll", "--stop-timeout")) {
            stated.add(option + "=" + io.standby.slot.Durations.format(node.matchedOptionValue(option, Duration.ZERO)));
        }
        assertTrue(
                readme.contains(String.join(" ", stated)),
                "the README names the timing it derives its times from: " + stated);
        Object grace = map(nodes(), "spec", "template", "spec").get("terminationGracePeriodSeconds");
        assertTrue(readme.contains("terminationGracePeriodSeconds: " + grace), "the README names the grace period");
        for (String scenario : List.of("### Rolling update", "### Node drain", "### Pod eviction", "### Node crash")) {
            assertTrue(readme.contains(scenario), "the README covers: " + scenario);
        }
        assertNotEquals(-1, readme.indexOf("status.podIP"));
    }

    private static final String INSTANCE = "app.kubernetes.io/instance";

    /** The labels of every pod an install's documents create: the Deployments' and the Jobs' templates. */
    private static List<Map<String, Object>> podLabels(Map<String, Map<String, Object>> install) {
        return install.values().stream()
                .filter(d -> Set.of("Deployment", "Job").contains(d.get("kind")))
                .map(d -> map(d, "spec", "template", "metadata", "labels"))
                .toList();
    }

    /**
     * Every selector of pods in a document, as the labels it requires: the Deployment's, the budget's, the Service's,
     * the spread's, a network policy's pods and peers, wherever they are. Only matchLabels: an expression would escape
     * this check, so it fails.
     */
    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> podSelectors(Object node) {
        List<Map<String, Object>> selectors = new ArrayList<>();
        if (node instanceof Map<?, ?> parent) {
            for (var entry : ((Map<String, Object>) parent).entrySet()) {
                if (Set.of("selector", "labelSelector", "podSelector").contains(entry.getKey())) {
                    Map<String, Object> selector = (Map<String, Object>) entry.getValue();
                    assertFalse(selector.containsKey("matchExpressions"), "matchLabels only: " + selector);
                    selectors.add(selector.containsKey("matchLabels") ? map(selector, "matchLabels") : selector);
                } else {
                    selectors.addAll(podSelectors(entry.getValue()));
                }
            }
        } else if (node instanceof List<?> items) {
            items.forEach(item -> selectors.addAll(podSelectors(item)));
        }
        return selectors;
    }

    private static boolean selects(Map<String, Object> selector, Map<String, Object> podLabels) {
        return podLabels.entrySet().containsAll(selector.entrySet());
    }

    /** Every selector names the install, and selects pods of its own install. */
    private static void assertEverySelectorNamesTheInstance(String where, Map<String, Map<String, Object>> install) {
        Object instance =
                map(nodes(install), "spec", "template", "metadata", "labels").get(INSTANCE);
        assertNotNull(instance, where + ": the nodes carry " + INSTANCE);
        for (Map<String, Object> pod : podLabels(install)) {
            assertEquals(instance, pod.get(INSTANCE), where + ": every pod carries the instance: " + pod);
        }
        int found = 0;
        for (var document : install.entrySet()) {
            // Standby's own documents: the dev overlay's throw-away MongoDB is not part of the install.
            if (!"standby".equals(map(document.getValue(), "metadata", "labels").get("app.kubernetes.io/name"))) {
                continue;
            }
            for (Map<String, Object> selector : podSelectors(document.getValue())) {
                found++;
                assertEquals(instance, selector.get(INSTANCE), where + " " + document.getKey() + ": " + selector);
                assertTrue(
                        podLabels(install).stream().anyMatch(pod -> selects(selector, pod)),
                        where + " " + document.getKey() + ": " + selector + " selects pods of its own install");
            }
        }
        // The Deployment, two spreads, the budget and the Service, at least; the walk cannot come back empty.
        assertTrue(found >= 5, where + ": " + found + " selectors");
    }

    @Test
    void everySelectorInTheBaseNamesTheInstance() throws IOException {
        assertEverySelectorNamesTheInstance("base", base());
    }

    @Test
    void everySelectorInEveryOverlayNamesTheInstance() throws Exception {
        for (String overlay : OVERLAYS) {
            assertEverySelectorNamesTheInstance(overlay, kustomize(overlay));
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theProductionOverlayNamesARegistryImageANamespaceReplicasAndTheSecret() throws Exception {
        Map<String, Object> kustomization =
                new Yaml().load(Files.readString(dir("production").resolve("kustomization.yaml")));
        Map<String, Map<String, Object>> production = kustomize("production");

        Map<String, Object> image = only(list(kustomization, "images"));
        String expected = image.get("newName") + ":" + image.get("newTag");
        assertTrue(
                expected.matches("[a-z0-9.-]+\\.[a-z]+/.+:[0-9][^:]*"), "a registry's image at a version: " + expected);
        int containers = 0;
        for (var document : production.entrySet()) {
            if (Set.of("Deployment", "Job").contains(document.getValue().get("kind"))) {
                for (Map<String, Object> container :
                        list(document.getValue(), "spec", "template", "spec", "containers")) {
                    containers++;
                    assertEquals(expected, container.get("image"), document.getKey());
                }
            }
        }
        assertEquals(2, containers, "the nodes and the slots Job");

        String namespace = (String) kustomization.get("namespace");
        assertNotNull(namespace, "the overlay names a namespace");
        for (var document : production.entrySet()) {
            assertEquals(namespace, map(document.getValue(), "metadata").get("namespace"), document.getKey());
        }

        int replicas = ((Number) only(list(kustomization, "replicas")).get("count")).intValue();
        assertEquals(replicas, map(nodes(production), "spec").get("replicas"));
        int maxSlots = nodeCommand(nodes(production)).matchedOptionValue("--max-slots", 0);
        assertTrue((replicas - 1) * maxSlots > slotsJobCount(), replicas + " nodes: one away still leaves a standby");

        // The Secret is not in git: the overlay names it, and the README's first install creates that one.
        Set<String> secrets = mongoSecrets(production);
        assertEquals(1, secrets.size(), "one Secret for the nodes and the Job: " + secrets);
        assertTrue(
                production.keySet().stream().noneMatch(k -> k.startsWith("Secret/")),
                production.keySet().toString());
        String readme = Files.readString(dir("").resolve("README.md"));
        String create = "kubectl -n " + namespace + " create secret generic "
                + secrets.iterator().next();
        assertTrue(readme.contains(create), "the README says how to create it: " + create);
        assertTrue(readme.contains("kubectl apply -k deploy/kubernetes/production"), "and how to apply the overlay");

        assertTrue(production.containsKey("NetworkPolicy/standby-node"), "production restricts the node port");
    }

    /** The Secrets the containers read the MongoDB URI from. */
    private static Set<String> mongoSecrets(Map<String, Map<String, Object>> install) {
        Set<String> secrets = new HashSet<>();
        for (Map<String, Object> document : install.values()) {
            if (Set.of("Deployment", "Job").contains(document.get("kind"))) {
                for (Map<String, Object> container : list(document, "spec", "template", "spec", "containers")) {
                    Map<String, Object> uri = named(list(container, "env"), "STANDBY_MONGO_URI");
                    secrets.add((String) map(uri, "valueFrom", "secretKeyRef").get("name"));
                }
            }
        }
        return secrets;
    }

    private static Set<Object> databases(Map<String, Map<String, Object>> install) {
        Set<Object> databases = new HashSet<>();
        for (Map<String, Object> document : install.values()) {
            if (Set.of("Deployment", "Job").contains(document.get("kind"))) {
                for (Map<String, Object> container : list(document, "spec", "template", "spec", "containers")) {
                    databases.add(named(list(container, "env"), "STANDBY_DB").get("value"));
                }
            }
        }
        return databases;
    }

    @Test
    void twoInstallsInOneNamespaceNeverSelectEachOthersPodsNorShareANameOrADatabase() throws Exception {
        Map<String, Map<String, Map<String, Object>>> installs = new LinkedHashMap<>();
        for (String name : List.of("production", "examples/second-install")) {
            installs.put(name, kustomize(name));
        }
        Set<Object> namespaces = new HashSet<>();
        installs.values()
                .forEach(i -> i.values()
                        .forEach(d -> namespaces.add(map(d, "metadata").get("namespace"))));
        assertEquals(1, namespaces.size(), "side by side in one namespace: " + namespaces);

        for (var one : installs.entrySet()) {
            for (var other : installs.entrySet()) {
                if (one == other) {
                    continue;
                }
                for (var document : one.getValue().entrySet()) {
                    for (Map<String, Object> selector : podSelectors(document.getValue())) {
                        for (Map<String, Object> pod : podLabels(other.getValue())) {
                            assertFalse(
                                    selects(selector, pod),
                                    one.getKey() + " " + document.getKey() + " selects " + other.getKey() + "'s pod "
                                            + pod);
                        }
                    }
                }
            }
        }
        Set<String> shared = new HashSet<>(installs.get("production").keySet());
        shared.retainAll(installs.get("examples/second-install").keySet());
        assertEquals(Set.of(), shared, "no kind and name in both installs");

        Set<Object> databases = databases(installs.get("production"));
        assertEquals(1, databases.size(), databases.toString());
        assertFalse(
                databases(installs.get("examples/second-install")).stream().anyMatch(databases::contains),
                "each install its own database: one database would make both installs one cluster");
        assertFalse(
                mongoSecrets(installs.get("examples/second-install")).stream()
                        .anyMatch(mongoSecrets(installs.get("production"))::contains),
                "each install its own Secret");

        // One ServiceMonitor scrapes every install, each as a job of its own the alert rules match (standby*).
        Map<String, Object> monitor =
                new Yaml().load(Files.readString(dir("monitoring").resolve("service-monitor.yaml")));
        for (var install : installs.entrySet()) {
            List<Map<String, Object>> services = install.getValue().values().stream()
                    .filter(d -> "Service".equals(d.get("kind")))
                    .toList();
            Map<String, Object> service = only(services);
            assertTrue(selects(map(monitor, "spec", "selector", "matchLabels"), map(service, "metadata", "labels")));
            assertTrue(((String) map(service, "metadata").get("name")).startsWith("standby"), install.getKey());
        }
    }

    @Test
    void podsSpreadOverZonesAndOverMachines() throws IOException {
        Map<String, Object> selector = map(nodes(), "spec", "selector", "matchLabels");
        Map<String, Map<String, Object>> byKey = new HashMap<>();
        for (Map<String, Object> spread : list(nodes(), "spec", "template", "spec", "topologySpreadConstraints")) {
            assertNull(byKey.put((String) spread.get("topologyKey"), spread), "one spread per key");
        }
        for (String key : List.of("topology.kubernetes.io/zone", "kubernetes.io/hostname")) {
            Map<String, Object> spread = byKey.get(key);
            assertNotNull(spread, "spread over " + key + ": " + byKey.keySet());
            assertEquals(selector, map(spread, "labelSelector", "matchLabels"), key + ": counts this install's nodes");
            assertEquals(1, spread.get("maxSkew"), key);
            // A cluster in one zone, or with fewer machines than pods, must still run every node.
            assertEquals("ScheduleAnyway", spread.get("whenUnsatisfiable"), key);
        }
    }

    @Test
    void aFinishedSlotsJobCleansItselfUpAfterTimeToReadItsLog() throws IOException {
        Map<String, Object> spec = map(base().get("Job/standby-slots-init"), "spec");
        assertTrue(
                spec.get("ttlSecondsAfterFinished") instanceof Number ttl && ttl.longValue() >= 3600,
                "ttlSecondsAfterFinished, an hour or more: " + spec.get("ttlSecondsAfterFinished"));
    }

    /** A rule's ports, as "7700/TCP". */
    private static Set<String> ports(Map<String, Object> rule) {
        Set<String> ports = new HashSet<>();
        for (Map<String, Object> port : list(rule, "ports")) {
            ports.add(port.get("port") + "/" + port.get("protocol"));
        }
        return ports;
    }

    @Test
    @SuppressWarnings("unchecked")
    void theNetworkPolicyLetsOnlyNodesAndMonitoringInAndOnlyNodesMongoAndDnsOut() throws IOException {
        Map<String, Map<String, Object>> policies = new LinkedHashMap<>();
        for (Object loaded : new Yaml()
                .loadAll(Files.readString(dir("components/network-policy").resolve("network-policy.yaml")))) {
            policies.put(key((Map<String, Object>) loaded), (Map<String, Object>) loaded);
        }
        ParseResult node = nodeCommand();
        String http = node.matchedOptionValue("--port", 0) + "/TCP";
        String watch = node.matchedOptionValue("--watch-port", 0) + "/TCP";
        Set<String> mongoAndDns = Set.of("27017/TCP", "53/UDP", "53/TCP");
        Map<String, Object> nodes = map(nodes(), "spec", "selector", "matchLabels");

        Map<String, Object> policy = policies.get("NetworkPolicy/standby-node");
        assertNotNull(policy, policies.keySet().toString());
        assertEquals(nodes, map(policy, "spec", "podSelector", "matchLabels"), "it holds for the nodes");
        assertEquals(List.of("Ingress", "Egress"), map(policy, "spec").get("policyTypes"));

        // In: the install's nodes on both ports; the monitoring namespace on the node port only. Nobody else.
        Map<String, Set<String>> ingress = new HashMap<>();
        for (Map<String, Object> rule : list(policy, "spec", "ingress")) {
            Map<String, Object> peer = only(list(rule, "from"));
            assertEquals(1, peer.size(), "one kind of peer per rule, not an intersection: " + peer);
            String from = peer.containsKey("podSelector")
                    ? (nodes.equals(map(peer, "podSelector", "matchLabels")) ? "nodes" : "other pods " + peer)
                    : "namespace " + map(peer, "namespaceSelector", "matchLabels");
            assertNull(ingress.put(from, ports(rule)), from);
        }
        assertEquals(
                Map.of(
                        "nodes",
                        Set.of(http, watch),
                        "namespace {kubernetes.io/metadata.name=monitoring}",
                        Set.of(http)),
                ingress);

        // Out: the install's nodes on both ports; MongoDB and DNS by port. Nothing else.
        Set<String> toAnywhere = new HashSet<>();
        for (Map<String, Object> rule : list(policy, "spec", "egress")) {
            if (rule.containsKey("to")) {
                Map<String, Object> peer = only(list(rule, "to"));
                assertEquals(Set.of("podSelector"), peer.keySet(), peer.toString());
                assertEquals(nodes, map(peer, "podSelector", "matchLabels"), "to the install's nodes");
                assertEquals(Set.of(http, watch), ports(rule), "to the nodes");
            } else {
                toAnywhere.addAll(ports(rule));
            }
        }
        assertEquals(mongoAndDns, toAnywhere, "MongoDB and DNS, wherever they are");

        // The slots Job: nothing in, MongoDB and DNS out.
        Map<String, Object> job = policies.get("NetworkPolicy/standby-slots-init");
        assertNotNull(job, policies.keySet().toString());
        assertTrue(
                selects(
                        map(job, "spec", "podSelector", "matchLabels"),
                        map(base().get("Job/standby-slots-init"), "spec", "template", "metadata", "labels")),
                "it holds for the Job's pods");
        assertEquals(List.of("Ingress", "Egress"), map(job, "spec").get("policyTypes"));
        assertNull(map(job, "spec").get("ingress"), "nothing talks to the Job");
        Set<String> jobOut = new HashSet<>();
        for (Map<String, Object> rule : list(job, "spec", "egress")) {
            assertFalse(rule.containsKey("to"), rule.toString());
            jobOut.addAll(ports(rule));
        }
        assertEquals(mongoAndDns, jobOut);
    }

    @Test
    @SuppressWarnings("unchecked")
    void pluginJarsComeFromAnImageThroughAnEmptyDirTheNodeReadsAsItsPluginDirectory() throws Exception {
        Map<String, Map<String, Object>> withPlugins = kustomize("examples/plugins");
        Map<String, Object> pod = map(nodes(withPlugins), "spec", "template", "spec");
        Map<String, Object> node = named(list(pod, "containers"), "node");
        String pluginDir = nodeCommand(nodes(withPlugins))
                .matchedOptionValue("--plugins", Path.of(""))
                .toString();
        Map<String, Object> mount = list(node, "volumeMounts").stream()
                .filter(m -> pluginDir.equals(m.get("mountPath")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("nothing mounted at --plugins " + pluginDir));
        assertEquals(true, mount.get("readOnly"), "the node only reads its plugins");
        Object volume = mount.get("name");
        assertTrue(named(list(pod, "volumes"), (String) volume).containsKey("emptyDir"), volume + " is an emptyDir");

        // The image's own plugins first, from the node's image, as the Dockerfile puts them there.
        assertTrue(
                Files.readString(HouseRulesTest.root().resolve("docker/Dockerfile"))
                        .contains(" " + pluginDir + "/\n"),
                "the image keeps its plugins in " + pluginDir);
        List<Map<String, Object>> init = list(pod, "initContainers");
        assertEquals(
                List.of("bundled-plugins", "plugins"),
                init.stream().map(c -> c.get("name")).toList());
        Map<String, Object> bundled = init.getFirst();
        assertEquals(node.get("image"), bundled.get("image"), "the node's own image, as the overlay made it");
        assertEquals(List.of("cp", "-R", pluginDir + "/.", "/into/"), bundled.get("command"));

        Map<String, Object> kustomization =
                new Yaml().load(Files.readString(dir("examples/plugins").resolve("kustomization.yaml")));
        Map<String, Object> pluginImage = list(kustomization, "images").stream()
                .filter(i -> "standby-plugins".equals(i.get("name")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the overlay names the plugin image"));
        Map<String, Object> plugins = init.get(1);
        assertEquals(pluginImage.get("newName") + ":" + pluginImage.get("newTag"), plugins.get("image"));
        assertEquals(List.of("cp", "-R", "/plugins/.", "/into/"), plugins.get("command"));

        for (Map<String, Object> container : init) {
            String where = (String) container.get("name");
            Map<String, Object> into = only(list(container, "volumeMounts"));
            assertEquals(volume, into.get("name"), where + " writes into the volume the node reads");
            assertEquals("/into", into.get("mountPath"), where);
            for (String kind : List.of("requests", "limits")) {
                Map<String, Object> resources = map(container, "resources", kind);
                assertTrue(resources.containsKey("cpu") && resources.containsKey("memory"), where + " " + kind);
            }
            Map<String, Object> security = map(container, "securityContext");
            assertEquals(true, security.get("readOnlyRootFilesystem"), where);
            assertEquals(false, security.get("allowPrivilegeEscalation"), where);
            assertEquals(List.of("ALL"), map(security, "capabilities").get("drop"), where);
        }
    }
}
