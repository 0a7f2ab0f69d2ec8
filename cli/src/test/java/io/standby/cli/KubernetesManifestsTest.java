package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.SlotTiming;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 */
class KubernetesManifestsTest {

    private static final String POD_IP = "10.244.1.7";

    private static Path dir(String name) {
        return DockerFilesTest.root().resolve("deploy/kubernetes").resolve(name);
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
        Map<String, Object> deployment = base().get("Deployment/standby-node");
        assertNotNull(deployment, "the nodes are a Deployment named standby-node: " + base().keySet());
        return deployment;
    }

    private static Map<String, Object> nodeContainer() throws IOException {
        return named(list(nodes(), "spec", "template", "spec", "containers"), "node");
    }

    /** The node's command line as the image's entrypoint gets it, with $(POD_IP) as the kubelet expands it. */
    @SuppressWarnings("unchecked")
    private static ParseResult nodeCommand() throws IOException {
        List<String> args = ((List<String>) nodeContainer().get("args"))
                .stream().map(a -> a.replace("$(POD_IP)", POD_IP)).toList();
        assertEquals("node", args.getFirst(), args.toString());
        ParseResult node = DockerFilesTest.leaf(DockerFilesTest.parse(args));
        assertTrue(node.unmatched().isEmpty(), args.toString());
        return node;
    }

    @Test
    void kubectlKustomizeRendersWhatTheTestReads() throws Exception {
        for (String name : List.of("base", "dev")) {
            Map<String, Map<String, Object>> rendered = render(dir(name));
            Path kubectl = onPath("kubectl");
            if (kubectl == null) {
                // CI machines may lack kubectl; the Java rendering above still ran.
                continue;
            }
            Process process = new ProcessBuilder(
                            kubectl.toString(), "kustomize", dir(name).toString())
                    .redirectErrorStream(true)
                    .start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "kubectl kustomize " + name);
            assertEquals(0, process.exitValue(), out);
            Map<String, Map<String, Object>> byKubectl = new LinkedHashMap<>();
            for (Object document : new Yaml().loadAll(out)) {
                @SuppressWarnings("unchecked")
                Map<String, Object> map = (Map<String, Object>) document;
                byKubectl.put(key(map), map);
            }
            assertEquals(rendered, byKubectl, name + ": kubectl kustomize renders the same documents");
        }
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
        Duration stop = node.matchedOptionValue("--stop-timeout", Duration.ZERO);
        assertFalse(stop.isZero(), "--stop-timeout written out");
        Number grace = (Number) map(nodes(), "spec", "template", "spec").get("terminationGracePeriodSeconds");
        assertNotNull(grace, "terminationGracePeriodSeconds");
        // The robots' last checkpoints, the release, the hand-over check (ADMIN_TIMEOUT), and room for the JVM.
        Duration needed = stop.plus(StandbyCli.ADMIN_TIMEOUT).plusSeconds(5);
        assertTrue(
                Duration.ofSeconds(grace.longValue()).compareTo(needed) >= 0,
                "terminationGracePeriodSeconds " + grace + " >= " + needed.toSeconds() + " s");
        SlotTiming timing = SlotTiming.of(
                node.matchedOptionValue("--heartbeat", Duration.ZERO),
                node.matchedOptionValue("--lease", Duration.ZERO),
                node.matchedOptionValue("--poll", Duration.ZERO));
        assertEquals(
                SlotTiming.of(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(1)),
                timing,
                "the node's defaults, which the README's times are derived from");
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
                .matcher(Files.readString(DockerFilesTest.root().resolve("docker/Dockerfile")));
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
}
