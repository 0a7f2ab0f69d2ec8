package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.mongodb.ConnectionString;
import io.standby.slot.NodeId;
import io.standby.slot.SlotTiming;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * docker/ cannot be run here (no Docker engine), so this keeps it from rotting: every standby command in compose.yaml
 * parses with the command line's own picocli model and passes the checks the command makes before it connects; the
 * nodes' identities, ports and timing are what the README promises; and the Dockerfile builds with the command
 * docker/README.md gives for building without Docker.
 */
class DockerFilesTest {

    private static final String IMAGE = "standby:local";
    /** The MongoDB image everywhere in compose.yaml: a patch release, not a tag that moves to the next one. */
    static final String MONGO_IMAGE = "mongo:7.0.24";
    /** What '--ip auto' becomes in a container (docker/standby); any literal address will do for parsing. */
    private static final String AUTO_IP = "172.28.0.99";
    /** The longest replica-set election the lease must outlast (README, "Timing"). */
    private static final Duration ELECTION = Duration.ofSeconds(12);

    private static final List<String> NODE_SETTINGS =
            List.of("--ip", "--port", "--max-slots", "--heartbeat", "--lease", "--poll", "--stop-timeout", "--plugins");

    private static Path root() {
        return HouseRulesTest.root();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> services() throws IOException {
        Map<String, Object> compose = new Yaml().load(Files.readString(root().resolve("docker/compose.yaml")));
        return (Map<String, Map<String, Object>>) compose.get("services");
    }

    /** The services that run the standby image, in file order. */
    private static Map<String, Map<String, Object>> standbyServices() throws IOException {
        Map<String, Map<String, Object>> standby = new LinkedHashMap<>();
        services().forEach((name, service) -> {
            if (IMAGE.equals(service.get("image"))) {
                standby.put(name, service);
            }
        });
        return standby;
    }

    /** A service's standby commands: its command, or each 'standby ...' of a bash -c script. */
    @SuppressWarnings("unchecked")
    private static List<List<String>> commands(Map<String, Object> service) {
        List<String> command = (List<String>) service.get("command");
        Object entrypoint = service.get("entrypoint");
        if (entrypoint == null) {
            return List.of(command);
        }
        assertEquals(List.of("/bin/bash", "-c"), entrypoint, "the only entrypoint override is a bash script");
        List<List<String>> found = new ArrayList<>();
        for (String line : command.getFirst().split("\n")) {
            List<String> segment = new ArrayList<>();
            for (String word : ShellWords.split(line)) {
                if (Set.of("||", "&&", ";", "|").contains(word)) {
                    addStandby(found, segment);
                    segment = new ArrayList<>();
                } else {
                    segment.add(word);
                }
            }
            addStandby(found, segment);
        }
        return found;
    }

    private static void addStandby(List<List<String>> found, List<String> segment) {
        if (segment.isEmpty() || !segment.getFirst().equals("standby")) {
            return;
        }
        List<String> args = new ArrayList<>();
        for (int i = 1; i < segment.size(); i++) {
            String word = segment.get(i);
            if (word.equals(">") || word.equals("2>")) {
                i++;
            } else if (!word.matches("\\d?>.*")) {
                args.add(word);
            }
        }
        found.add(args);
    }

    static ParseResult parse(List<String> args) {
        List<String> concrete = new ArrayList<>(args);
        for (int i = 1; i < concrete.size(); i++) {
            if (concrete.get(i - 1).equals("--ip") && concrete.get(i).equals("auto")) {
                concrete.set(i, AUTO_IP);
            }
        }
        try {
            return StandbyCli.commandLine().parseArgs(concrete.toArray(String[]::new));
        } catch (CommandLine.ParameterException e) {
            throw new AssertionError("'standby " + String.join(" ", args) + "' does not parse: " + e.getMessage(), e);
        }
    }

    /** The innermost subcommand's parse result, e.g. 'node' of 'standby node ...'. */
    static ParseResult leaf(ParseResult result) {
        while (result.hasSubcommand()) {
            result = result.subcommand();
        }
        return result;
    }

    @Test
    void everyStandbyCommandInTheComposeFileParsesWithTheCommandLinesOwnOptions() throws IOException {
        int parsed = 0;
        for (var service : standbyServices().entrySet()) {
            for (List<String> args : commands(service.getValue())) {
                ParseResult result = parse(args);
                assertTrue(leaf(result).unmatched().isEmpty(), service.getKey() + ": " + args);
                parsed++;
            }
        }
        // slots-init, 4 nodes and the scalable one, and the robots script: 5 x (show, add) and a list.
        assertEquals(1 + 5 + 11, parsed, "the standby commands found in compose.yaml");
    }

    @Test
    void theNodesHaveTheirOwnIdentitiesAndPortsAndALeaseThatOutlastsAnElection() throws IOException {
        Set<String> identities = new HashSet<>();
        Set<Integer> ports = new HashSet<>();
        int nodes = 0;
        for (var service : standbyServices().entrySet()) {
            List<String> args = commands(service.getValue()).getFirst();
            if (!args.getFirst().equals("node")) {
                continue;
            }
            nodes++;
            String name = service.getKey();
            ParseResult node = leaf(parse(args));
            for (String setting : NODE_SETTINGS) {
                assertTrue(node.hasMatchedOption(setting), name + " writes out " + setting);
            }
            boolean auto = args.get(args.indexOf("--ip") + 1).equals("auto");
            String ip = node.matchedOptionValue("--ip", "");
            int port = node.matchedOptionValue("--port", 0);
            // The checks 'standby node' makes before it binds or connects.
            NodeId id = new NodeId(ip, port);
            SlotTiming timing = SlotTiming.of(
                    node.matchedOptionValue("--heartbeat", Duration.ZERO),
                    node.matchedOptionValue("--lease", Duration.ZERO),
                    node.matchedOptionValue("--poll", Duration.ZERO));
            assertTrue(
                    timing.lease().minus(timing.fenceMargin()).compareTo(ELECTION) > 0,
                    name + ": lease - lease/10 must outlast an election of " + ELECTION + ": " + timing);
            assertEquals(
                    "/opt/standby/plugins",
                    node.matchedOptionValue("--plugins", Path.of("")).toString(),
                    name);
            if (auto) {
                assertTrue(
                        service.getValue().containsKey("deploy"),
                        name + ": only the scalable service finds its address");
                continue;
            }
            assertTrue(identities.add(id.toString()), name + ": identity " + id + " is taken");
            assertTrue(ports.add(port), name + ": port " + port + " is taken");
            @SuppressWarnings("unchecked")
            Map<String, Map<String, Object>> networks =
                    (Map<String, Map<String, Object>>) service.getValue().get("networks");
            assertEquals(
                    ip, networks.get("standby").get("ipv4_address"), name + ": its --ip is its container's address");
            assertEquals(
                    List.of("127.0.0.1:${STANDBY_NODE" + name.substring("node".length()) + "_PORT:-" + port + "}:"
                            + port),
                    service.getValue().get("ports"),
                    name + ": published on loopback, at a host port a test can move");
        }
        assertEquals(5, nodes, "node1-node4 and the scalable node");
        assertEquals(4, ports.size(), "four nodes with distinct ports");
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyStandbyServiceReachesTheThreeMemberReplicaSetThatAOneShotStarts() throws IOException {
        Map<String, Map<String, Object>> services = services();
        for (var service : standbyServices().entrySet()) {
            Map<String, String> env = (Map<String, String>) service.getValue().get("environment");
            ConnectionString uri = new ConnectionString(env.get("STANDBY_MONGO_URI"));
            assertEquals(List.of("mongo1:27017", "mongo2:27017", "mongo3:27017"), uri.getHosts(), service.getKey());
            assertEquals("rs0", uri.getRequiredReplicaSetName(), service.getKey());
            assertEquals("standby", env.get("STANDBY_DB"), service.getKey());
        }
        for (String member : List.of("mongo1", "mongo2", "mongo3")) {
            Map<String, Object> mongo = services.get(member);
            assertEquals(MONGO_IMAGE, mongo.get("image"), member);
            List<String> command = (List<String>) mongo.get("command");
            assertEquals("rs0", command.get(command.indexOf("--replSet") + 1), member);
            assertTrue(
                    ((List<String>) mongo.get("volumes")).getFirst().startsWith(member + "-data:"),
                    member + " keeps its data");
        }
        String init = String.join(" ", (List<String>) services.get("mongo-init").get("command"));
        for (String host : List.of("mongo1:27017", "mongo2:27017", "mongo3:27017")) {
            assertTrue(init.contains("host: '" + host + "'"), "rs.initiate names " + host);
        }
        assertTrue(init.contains("rs.initiate({_id: 'rs0'"), init);
        Map<String, Object> slotsInit = services.get("slots-init");
        assertEquals(
                Map.of("mongo-init", Map.of("condition", "service_completed_successfully")),
                slotsInit.get("depends_on"));
    }

    @Test
    void everyRobotTypeTheComposeFileAddsIsBuiltInOrInAPluginTheImageCarries() throws IOException {
        Set<String> types =
                new HashSet<>(io.standby.robot.runtime.RobotTypes.builtIn().names());
        for (String module : dockerfileModules()) {
            types.addAll(factoryTypes(root().resolve(module)));
        }
        int added = 0;
        for (List<String> args : commands(standbyServices().get("robots"))) {
            if (args.size() > 1 && args.get(0).equals("robot") && args.get(1).equals("add")) {
                String type = leaf(parse(args)).matchedOptionValue("--type", "");
                assertTrue(
                        types.contains(type), "type '" + type + "' is built in or in a plugin of the image: " + types);
                added++;
            }
        }
        assertEquals(5, added);
        assertTrue(types.containsAll(Set.of("counter", "ledger", "poller", "hello")), types.toString());
    }

    /** The robot types of a module's factories: the TYPE constants of the classes its service file lists. */
    private static Set<String> factoryTypes(Path module) throws IOException {
        Set<String> types = new HashSet<>();
        Path services = module.resolve("src/main/resources/META-INF/services/io.standby.robot.RobotFactory");
        if (!Files.exists(services)) {
            return types;
        }
        for (String line : Files.readAllLines(services)) {
            String outer = line.strip().replaceFirst("\\$.*", "");
            if (outer.isEmpty()) {
                continue;
            }
            Path source = module.resolve("src/main/java/" + outer.replace('.', '/') + ".java");
            Matcher type = Pattern.compile("String TYPE = \"([^\"]+)\"").matcher(Files.readString(source));
            assertTrue(type.find(), source + " declares TYPE");
            types.add(type.group(1));
        }
        return types;
    }

    /** The Dockerfile with its continuation lines joined. */
    private static List<String> dockerfile() throws IOException {
        List<String> lines = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : Files.readAllLines(root().resolve("docker/Dockerfile"))) {
            if (line.strip().startsWith("#") && current.isEmpty()) {
                continue;
            }
            if (line.endsWith("\\")) {
                current.append(line, 0, line.length() - 1).append(' ');
                continue;
            }
            current.append(line);
            if (!current.toString().isBlank()) {
                lines.add(current.toString().strip().replaceAll("\\s+", " "));
            }
            current.setLength(0);
        }
        return lines;
    }

    /**
     * The Maven command of the Dockerfile's build stage. It runs twice: on the poms alone (the dependencies, into the
     * build cache), then on the sources.
     */
    private static String dockerfileBuild() throws IOException {
        List<String> builds = dockerfile().stream()
                .filter(l -> l.startsWith("RUN ") && l.contains("mvn "))
                .toList();
        assertEquals(2, builds.size(), "the build on the poms alone, then offline on the sources: " + builds);
        String build = builds.getFirst().substring(builds.getFirst().indexOf("mvn "));
        // Not offline: with Maven's repository in a build cache, which BuildKit may empty while the layer of
        // the first build stays, an offline second build could fail for want of what the first one fetched.
        assertEquals(
                build,
                builds.getLast().substring(builds.getLast().indexOf("mvn ")),
                "the second build is the first, on the sources");
        int poms = dockerfile().indexOf("COPY --from=poms /poms/ ./");
        int sources = dockerfile().indexOf("COPY . .");
        assertTrue(
                poms >= 0
                        && poms < dockerfile().indexOf(builds.getFirst())
                        && dockerfile().indexOf(builds.getFirst()) < sources
                        // The two builds are the same line: the second is the last of them.
                        && sources < dockerfile().lastIndexOf(builds.getLast()),
                "poms, build, sources, build: " + dockerfile());
        return build;
    }

    private static List<String> dockerfileModules() throws IOException {
        Matcher modules = Pattern.compile("-pl (\\S+)").matcher(dockerfileBuild());
        assertTrue(modules.find(), dockerfileBuild());
        return List.of(modules.group(1).split(","));
    }

    @Test
    void theDockerfileBuildsWithTheCommandTheDockerReadmeGives() throws IOException {
        String build = dockerfileBuild();
        List<String> readme = Files.readAllLines(root().resolve("docker/README.md")).stream()
                .map(String::strip)
                .toList();
        assertTrue(
                readme.contains(build),
                "docker/README.md gives the Dockerfile's build command as a line of its own:\n" + build);

        List<String> modules = dockerfileModules();
        for (String module : modules) {
            assertTrue(Files.isRegularFile(root().resolve(module).resolve("pom.xml")), "module " + module + " exists");
        }
        List<String> copies = dockerfile().stream()
                .filter(l -> l.startsWith("COPY --from=build "))
                .toList();
        assertEquals(5, copies.size(), "the command line's libraries, its own jars and three plugins: " + copies);
        for (String copy : copies) {
            if (copy.endsWith("/lib/ /opt/standby/lib/") || copy.endsWith("/app/ /opt/standby/app/")) {
                assertTrue(copy.startsWith("COPY --from=build /src/cli/target/"), copy + " is the command line's");
                continue;
            }
            String source = copy.split(" ")[2];
            assertTrue(
                    modules.stream().anyMatch(m -> source.startsWith("/src/" + m + "/target/")),
                    copy + " comes from a module the build makes");
            String artifactId = Files.readString(
                            root().resolve(source.substring("/src/".length(), source.indexOf("/target/")))
                                    .resolve("pom.xml"))
                    .replaceAll("(?s).*?</parent>.*?<artifactId>([^<]+)</artifactId>.*", "$1");
            String jar = source.substring(source.lastIndexOf('/') + 1);
            assertTrue(jar.startsWith(artifactId + "-"), jar + " is what " + artifactId + " builds");
        }
    }

    @Test
    void theBuildNamesEveryModuleItNeedsAndNoneThatOnlyTestsUse() throws IOException {
        String build = dockerfileBuild();
        assertFalse(build.contains(" -am"), "-am would add test-support, which tests alone use: " + build);
        assertTrue(
                build.contains("-Dmaven.test.skip=true"), "no test goal, so no test dependency is resolved: " + build);
        List<String> modules = dockerfileModules();
        assertFalse(modules.contains("test-support"), modules.toString());
        // Every io.standby module a built module needs outside test scope is built too (no -am to find them).
        Map<String, String> byArtifact = new LinkedHashMap<>();
        for (String module : modules) {
            byArtifact.put(artifactId(root().resolve(module)), module);
        }
        for (String module : modules) {
            String pom = Files.readString(root().resolve(module).resolve("pom.xml"));
            Matcher dependency =
                    Pattern.compile("(?s)<dependency>(.*?)</dependency>").matcher(pom);
            while (dependency.find()) {
                String body = dependency.group(1);
                if (!body.contains("<groupId>io.standby</groupId>") || body.contains("<scope>test</scope>")) {
                    continue;
                }
                String needed = body.replaceAll("(?s).*<artifactId>([^<]+)</artifactId>.*", "$1");
                assertTrue(
                        byArtifact.containsKey(needed),
                        module + " needs " + needed + ", which the build does not name: " + modules);
            }
        }
        // The parent pom's skip-tests profile unbinds the test goals when tests are skipped.
        String parent = Files.readString(root().resolve("pom.xml"));
        for (String execution : List.of("default-testResources", "default-testCompile", "default-test")) {
            assertTrue(
                    parent.matches("(?s).*<name>maven\\.test\\.skip</name>.*<id>" + execution
                            + "</id>\\s*<phase>none</phase>.*"),
                    "the skip-tests profile unbinds " + execution);
        }
    }

    private static String artifactId(Path module) throws IOException {
        return Files.readString(module.resolve("pom.xml"))
                .replaceAll("(?s).*?</parent>.*?<artifactId>([^<]+)</artifactId>.*", "$1");
    }

    @Test
    void everyBaseImageIsAPatchReleaseOrADigest() throws IOException {
        List<String> images = new ArrayList<>();
        for (String line : dockerfile()) {
            Matcher arg = Pattern.compile("ARG \\w+_IMAGE=(\\S+)").matcher(line);
            if (arg.matches()) {
                images.add(arg.group(1));
            }
        }
        assertEquals(2, images.size(), "the Maven and the JRE image, as build arguments: " + images);
        for (var service : services().entrySet()) {
            Object image = service.getValue().get("image");
            if (image != null && !IMAGE.equals(image)) {
                images.add(image.toString());
            }
        }
        for (String image : images) {
            // name:MAJOR.MINOR.PATCH[...] or name@sha256:...: never 'latest', '7' or '1.27-alpine'.
            assertTrue(
                    image.matches("[a-z0-9./-]+(:[^:@]*\\d+\\.\\d+\\.\\d+[^:@]*)?(@sha256:[0-9a-f]{64})?")
                            && (image.contains(":") || image.contains("@")),
                    "a tag that names a patch release, or a digest: " + image);
        }
        assertTrue(
                dockerfile().stream().filter(l -> l.startsWith("FROM ")).allMatch(l -> l.startsWith("FROM ${")),
                "every stage's base is one of the pinned build arguments");
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyLongRunningServiceHasARestartPolicyAMemoryLimitAndAHealthCheck() throws IOException {
        Set<String> oneShots = Set.of("mongo-init", "slots-init", "robots");
        int longRunning = 0;
        for (var service : services().entrySet()) {
            String name = service.getKey();
            Map<String, Object> settings = service.getValue();
            if (oneShots.contains(name)) {
                assertEquals("no", settings.get("restart"), name + " retries by itself, within a bound");
                continue;
            }
            longRunning++;
            Object restart = settings.get("restart");
            assertTrue(
                    restart != null && Set.of("unless-stopped", "on-failure").contains(restart),
                    name + " restart: " + restart);
            String memory = (String) settings.get("mem_limit");
            assertTrue(memory != null && memory.matches("\\d+[mg]"), name + " mem_limit: " + memory);
            Map<String, Object> health = (Map<String, Object>) settings.get("healthcheck");
            assertTrue(
                    health != null && health.get("test") instanceof List<?> test && !test.isEmpty(),
                    name + " has a health check");
        }
        assertEquals(3 + 4 + 1 + 2, longRunning, "mongo1-3, node1-4, the scalable node, the producer and web");
        // The heap (75 % of the limit) of a node, and its grace period beyond the robots' checkpoint time.
        Map<String, Object> node = services().get("node1");
        assertEquals("384m", node.get("mem_limit"));
        assertTrue(
                ((Map<String, String>) node.get("environment")).get("JAVA_OPTS").contains("-XX:MaxRAMPercentage=75"));
        assertEquals("on-failure", node.get("restart"), "a node that exits 0 (stopped, drained) stays down");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theOneShotsGiveUpWithinABoundAndSayWhy() throws IOException {
        Map<String, Map<String, Object>> services = services();
        String init = String.join(" ", (List<String>) services.get("mongo-init").get("command"));
        assertTrue(
                init.contains("const limitSeconds = 120;")
                        && init.contains("quit(1)")
                        && init.contains("gave up after"),
                init);
        assertTrue(init.contains("waitFor('two secondaries'"), "majority writes need the secondaries: " + init);
        assertFalse(init.matches("(?s).*while \\(!rs\\.status.*"), "no unbounded wait: " + init);
        String slots =
                String.join(" ", (List<String>) services.get("slots-init").get("command"));
        assertTrue(
                slots.contains("for attempt in $$(seq 1 30)")
                        && slots.contains("exit 1")
                        && slots.contains("gave up after 30 attempts"),
                slots);
    }

    @Test
    @SuppressWarnings("unchecked")
    void theNodesFixedAddressesLieOutsideTheRangeDockerHandsOut() throws IOException {
        Map<String, Object> compose = new Yaml().load(Files.readString(root().resolve("docker/compose.yaml")));
        Map<String, Object> network = ((Map<String, Map<String, Object>>) compose.get("networks")).get("standby");
        Map<String, String> pool =
                ((List<Map<String, String>>) ((Map<String, Object>) network.get("ipam")).get("config")).getFirst();
        assertTrue(
                pool.get("ip_range") != null && pool.get("gateway") != null,
                "a range for Docker's own choices, and the gateway: " + pool);
        Cidr subnet = Cidr.parse(pool.get("subnet"));
        Cidr range = Cidr.parse(pool.get("ip_range"));
        assertTrue(
                subnet.contains(range.first()) && subnet.contains(range.last()), "ip_range inside the subnet: " + pool);
        int fixed = 0;
        for (var service : standbyServices().entrySet()) {
            if (service.getValue().get("networks") instanceof Map<?, ?> networks
                    && ((Map<String, Map<String, Object>>) networks)
                                    .get("standby")
                                    .get("ipv4_address")
                            instanceof String address) {
                long ip = Cidr.parse(address + "/32").first();
                assertTrue(subnet.contains(ip), service.getKey() + " " + address + " in " + subnet);
                assertFalse(
                        range.contains(ip),
                        service.getKey() + " " + address + " is outside ip_range " + pool.get("ip_range"));
                assertFalse(
                        ip == Cidr.parse(pool.get("gateway") + "/32").first(),
                        service.getKey() + " is not the gateway");
                fixed++;
            }
        }
        assertEquals(4, fixed, "node1-node4");
    }

    /** An IPv4 block, enough for the compose file's network. */
    record Cidr(long base, int bits) {
        static Cidr parse(String text) {
            String[] parts = text.split("/");
            long address = 0;
            for (String octet : parts[0].split("\\.")) {
                address = address << 8 | Integer.parseInt(octet);
            }
            int bits = Integer.parseInt(parts[1]);
            long mask = bits == 0 ? 0 : (0xFFFFFFFFL << (32 - bits)) & 0xFFFFFFFFL;
            return new Cidr(address & mask, bits);
        }

        long first() {
            return base;
        }

        long last() {
            return base + (1L << (32 - bits)) - 1;
        }

        boolean contains(long ip) {
            return ip >= first() && ip <= last();
        }
    }

    @Test
    void theImageRunsAsANonRootUserWithStandbyAsEntrypointAndAHealthcheckOnReady() throws IOException {
        List<String> lines = dockerfile();
        List<String> stages = lines.stream().filter(l -> l.startsWith("FROM ")).toList();
        assertEquals(
                List.of("FROM ${MAVEN_IMAGE} AS poms", "FROM ${MAVEN_IMAGE} AS build", "FROM ${JRE_IMAGE}"),
                stages,
                "the poms, the build and the runtime stage");
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("ARG MAVEN_IMAGE=maven:")), "a Maven image for the build");
        Matcher jre = Pattern.compile("ARG JRE_IMAGE=eclipse-temurin:(\\d+)\\..*-jre.*")
                .matcher(lines.stream()
                        .filter(l -> l.startsWith("ARG JRE_IMAGE="))
                        .findFirst()
                        .orElse(""));
        assertTrue(jre.matches() && Integer.parseInt(jre.group(1)) >= 21, "a JRE 21 or newer: " + lines);

        List<String> users = lines.stream().filter(l -> l.startsWith("USER ")).toList();
        assertFalse(users.isEmpty(), "a USER line");
        String user = users.getLast().substring(5).split(":")[0];
        assertNotEquals("root", user);
        assertNotEquals("0", user);
        assertTrue(lines.contains("ENTRYPOINT [\"standby\"]"), "standby is the entrypoint");
        // The working directory exists, owned by that user, before WORKDIR would create it as root's.
        int owned = indexOf(
                lines,
                l -> l.startsWith("RUN ") && l.matches(".*install -d -o (standby|" + user + ") .*/opt/standby( .*|$)"));
        int workdir = lines.indexOf("WORKDIR /opt/standby");
        assertTrue(owned >= 0 && owned < workdir, "/opt/standby made the user's before WORKDIR: " + lines);
        assertTrue(
                lines.stream().anyMatch(l -> l.contains("useradd") && l.contains("--uid " + user)),
                "USER " + user + " is the standby user");
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("HEALTHCHECK ") && l.endsWith("CMD [\"healthcheck\"]")));

        for (String script : List.of("standby", "healthcheck")) {
            Path file = root().resolve("docker").resolve(script);
            assertTrue(Files.isExecutable(file), file + " is executable");
            assertTrue(
                    lines.stream().anyMatch(l -> l.startsWith("COPY ") && l.contains("docker/" + script)),
                    script + " is copied");
        }
        String healthcheck = Files.readString(root().resolve("docker/healthcheck"));
        assertTrue(healthcheck.contains("standby health"), "the healthcheck runs 'standby health'");
        if (!healthcheck.contains("/proc/1/cmdline")) {
            fail("the healthcheck reads the node's address from its command line");
        }
    }

    /** The runtime stage's lines: everything after the last FROM. */
    private static List<String> runtimeStage() throws IOException {
        List<String> lines = dockerfile();
        int from = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("FROM ")) {
                from = i;
            }
        }
        return lines.subList(from + 1, lines.size());
    }

    @Test
    void theImageCarriesNoCurlSinceItsHealthCheckIsTheCommandLine() throws IOException {
        for (String line : runtimeStage()) {
            assertFalse(line.contains("curl"), "curl in the image: " + line);
        }
        String healthcheck = Files.readString(root().resolve("docker/healthcheck"));
        assertFalse(healthcheck.contains("curl"), "the healthcheck needs no curl:\n" + healthcheck);
        assertTrue(
                runtimeStage().stream()
                        .anyMatch(l -> l.startsWith("HEALTHCHECK ") && l.endsWith("CMD [\"healthcheck\"]")),
                runtimeStage().toString());
    }

    @Test
    void theImageHasTheOciLabelsWithThePomsVersion() throws IOException {
        Map<String, String> labels = new LinkedHashMap<>();
        Map<String, String> args = new LinkedHashMap<>();
        for (String line : runtimeStage()) {
            if (line.startsWith("LABEL ")) {
                Matcher label = Pattern.compile("(\\S+?)=\"([^\"]*)\"").matcher(line.substring(6));
                while (label.find()) {
                    labels.put(label.group(1), label.group(2));
                }
            }
            Matcher arg = Pattern.compile("ARG (\\w+)=(\\S+)").matcher(line);
            if (arg.matches()) {
                args.put(arg.group(1), arg.group(2));
            }
        }
        for (String key : List.of("title", "description", "source", "licenses", "version")) {
            String value = labels.get("org.opencontainers.image." + key);
            assertTrue(value != null && !value.isBlank(), "label org.opencontainers.image." + key + ": " + labels);
        }
        String version = labels.get("org.opencontainers.image.version");
        assertEquals("${VERSION}", version, "the version is a build argument");
        String pom = Files.readString(root().resolve("pom.xml"))
                .replaceAll("(?s).*?</parent>|(?s)<modules>.*", "")
                .replaceAll("(?s).*?<version>([^<]+)</version>.*", "$1");
        assertEquals(pom, args.get("VERSION"), "the version's default is the poms' own");
    }

    @Test
    void theLibrariesAreALayerBelowTheApplicationsJarsAndMavenHasABuildCache() throws IOException {
        assertEquals(
                "# syntax=docker/dockerfile:1",
                Files.readAllLines(root().resolve("docker/Dockerfile")).getFirst(),
                "BuildKit's Dockerfile syntax, for RUN --mount, on the first line");
        List<String> builds = dockerfile().stream()
                .filter(l -> l.startsWith("RUN ") && l.contains("mvn "))
                .toList();
        for (String build : builds) {
            assertTrue(
                    build.startsWith("RUN --mount=type=cache,target=/root/.m2 mvn "),
                    "Maven's repository in a build cache: " + build);
            assertTrue(
                    build.contains(" dependency:copy-dependencies ")
                            && build.contains("-DincludeScope=runtime")
                            && build.contains("-Dmdep.prependGroupId=true"),
                    "the libraries copied out, named by group so that Standby's own can be told apart: " + build);
        }
        List<String> runtime = runtimeStage();
        int lib = indexOf(runtime, l -> l.matches("COPY --from=build \\S+/lib/ /opt/standby/lib/"));
        int app = indexOf(runtime, l -> l.matches("COPY --from=build \\S+/app/ /opt/standby/app/"));
        assertTrue(lib >= 0 && app > lib, "the libraries, then Standby's jars, each a layer: " + runtime);
        String libDir = runtime.get(lib).split(" ")[2];
        String appDir = runtime.get(app).split(" ")[2];
        String split = dockerfile().stream()
                .filter(l -> l.startsWith("RUN ") && l.contains("io.standby.*.jar"))
                .findFirst()
                .orElse("");
        assertTrue(
                split.contains("mv " + libDir.replaceFirst("^/src/", "") + "io.standby.*.jar "
                        + appDir.replaceFirst("^/src/", "")),
                "Standby's own jars are moved out of the libraries: " + split);
    }

    /**
     * docker/standby, run by bash with a {@code java} of this test's that prints what it got: the launcher passes
     * JAVA_TOOL_OPTIONS on untouched, puts the image's JAVA_OPTS on the command line except a setting that
     * JAVA_TOOL_OPTIONS gives too (the command line would win), and runs the two layers' jars.
     */
    @Test
    void theLauncherHonoursJavaToolOptionsAndKeepsJavaOpts() throws Exception {
        String imageOptions = runtimeStage().stream()
                .filter(l -> l.startsWith("ENV JAVA_OPTS="))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the image sets JAVA_OPTS"))
                .replaceFirst("^ENV JAVA_OPTS=\"(.*)\"$", "$1");
        assertTrue(
                imageOptions.contains("-XX:MaxRAMPercentage=75")
                        && imageOptions.contains("-XX:+ExitOnOutOfMemoryError"),
                imageOptions);
        assertFalse(
                runtimeStage().stream().anyMatch(l -> l.contains("JAVA_TOOL_OPTIONS=")),
                "the image leaves JAVA_TOOL_OPTIONS to the operator");
        Path bin = Files.createTempDirectory("fake-java");
        try {
            Path java = bin.resolve("java");
            Files.writeString(
                    java,
                    "#!/usr/bin/env bash\necho \"JAVA_TOOL_OPTIONS=${JAVA_TOOL_OPTIONS-unset}\"\n"
                            + "printf '%s\\n' \"$@\"\n");
            assertTrue(java.toFile().setExecutable(true));
            String tool = "-XX:MaxRAMPercentage=50 -Dwhy=operator";
            ProcessBuilder launcher = new ProcessBuilder(
                            "bash", root().resolve("docker/standby").toString(), "nodes", "--db", "x")
                    .redirectErrorStream(true);
            launcher.environment().put("PATH", bin + ":" + System.getenv("PATH"));
            launcher.environment().put("JAVA_OPTS", imageOptions);
            launcher.environment().put("JAVA_TOOL_OPTIONS", tool);
            Process process = launcher.start();
            List<String> got = List.of(new String(process.getInputStream().readAllBytes()).split("\n"));
            assertEquals(0, process.waitFor(), String.join("\n", got));
            assertEquals(
                    List.of(
                            "JAVA_TOOL_OPTIONS=" + tool,
                            "-XX:+ExitOnOutOfMemoryError",
                            "-cp",
                            "/opt/standby/lib/*:/opt/standby/app/*",
                            "io.standby.cli.StandbyCli",
                            "nodes",
                            "--db",
                            "x"),
                    got,
                    "the operator's MaxRAMPercentage=50 stands; the image's other option stays");
        } finally {
            for (Path file : List.of(bin.resolve("java"), bin)) {
                Files.deleteIfExists(file);
            }
        }
    }

    private static int indexOf(List<String> lines, java.util.function.Predicate<String> match) {
        for (int i = 0; i < lines.size(); i++) {
            if (match.test(lines.get(i))) {
                return i;
            }
        }
        return -1;
    }

    /** Just enough of the shell's word splitting for compose.yaml's script: blanks, quotes, operators. */
    static final class ShellWords {
        static List<String> split(String line) {
            List<String> words = new ArrayList<>();
            StringBuilder word = new StringBuilder();
            boolean inWord = false;
            char quote = 0;
            for (char c : line.toCharArray()) {
                if (quote != 0) {
                    if (c == quote) {
                        quote = 0;
                    } else {
                        word.append(c);
                    }
                } else if (c == '\'' || c == '"') {
                    quote = c;
                    inWord = true;
                } else if (Character.isWhitespace(c)) {
                    if (inWord) {
                        words.add(word.toString());
                        word.setLength(0);
                        inWord = false;
                    }
                } else {
                    word.append(c);
                    inWord = true;
                }
            }
            if (quote != 0) {
                throw new AssertionError("unbalanced quote in: " + line);
            }
            if (inWord) {
                words.add(word.toString());
            }
            return words;
        }
    }
}
