package io.standby.cli;

import com.mongodb.ConnectionString;
import io.standby.slot.NodeId;
import io.standby.slot.SlotTiming;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * docker/ cannot be run here (no Docker engine), so this keeps it from rotting: every standby command in
 * compose.yaml parses with the command line's own picocli model and passes the checks the command makes
 * before it connects; the nodes' identities, ports and timing are what the README promises; and the
 * Dockerfile builds with the command docker/README.md gives for building without Docker.
 */
class DockerFilesTest {

    private static final String IMAGE = "standby:local";
    /** What '--ip auto' becomes in a container (docker/standby); any literal address will do for parsing. */
    private static final String AUTO_IP = "172.28.0.99";
    /** The longest replica-set election the lease must outlast (README, "Timing"). */
    private static final Duration ELECTION = Duration.ofSeconds(12);
    private static final List<String> NODE_SETTINGS = List.of("--ip", "--port", "--max-slots", "--heartbeat", "--lease", "--poll",
            "--stop-timeout", "--plugins");

    /** The repository's root: the tests run in cli/. */
    static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("docker/compose.yaml"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("no docker/compose.yaml above " + Path.of("").toAbsolutePath());
        }
        return dir;
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

    private static ParseResult parse(List<String> args) {
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
    private static ParseResult leaf(ParseResult result) {
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
            SlotTiming timing = SlotTiming.of(node.matchedOptionValue("--heartbeat", Duration.ZERO),
                    node.matchedOptionValue("--lease", Duration.ZERO), node.matchedOptionValue("--poll", Duration.ZERO));
            assertTrue(timing.lease().minus(timing.fenceMargin()).compareTo(ELECTION) > 0,
                    name + ": lease - lease/10 must outlast an election of " + ELECTION + ": " + timing);
            assertEquals("/opt/standby/plugins", node.matchedOptionValue("--plugins", Path.of("")).toString(), name);
            if (auto) {
                assertTrue(service.getValue().containsKey("deploy"), name + ": only the scalable service finds its address");
                continue;
            }
            assertTrue(identities.add(id.toString()), name + ": identity " + id + " is taken");
            assertTrue(ports.add(port), name + ": port " + port + " is taken");
            @SuppressWarnings("unchecked")
            Map<String, Map<String, Object>> networks = (Map<String, Map<String, Object>>) service.getValue().get("networks");
            assertEquals(ip, networks.get("standby").get("ipv4_address"), name + ": its --ip is its container's address");
            assertEquals(List.of("127.0.0.1:" + port + ":" + port), service.getValue().get("ports"), name + ": published on loopback");
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
            assertEquals("mongo:7", mongo.get("image"), member);
            List<String> command = (List<String>) mongo.get("command");
            assertEquals("rs0", command.get(command.indexOf("--replSet") + 1), member);
            assertTrue(((List<String>) mongo.get("volumes")).getFirst().startsWith(member + "-data:"), member + " keeps its data");
        }
        String init = String.join(" ", (List<String>) services.get("mongo-init").get("command"));
        for (String host : List.of("mongo1:27017", "mongo2:27017", "mongo3:27017")) {
            assertTrue(init.contains("host: '" + host + "'"), "rs.initiate names " + host);
        }
        assertTrue(init.contains("rs.initiate({_id: 'rs0'"), init);
        Map<String, Object> slotsInit = services.get("slots-init");
        assertEquals(Map.of("mongo-init", Map.of("condition", "service_completed_successfully")), slotsInit.get("depends_on"));
    }

    @Test
    void everyRobotTypeTheComposeFileAddsIsBuiltInOrInAPluginTheImageCarries() throws IOException {
        Set<String> types = new HashSet<>(io.standby.robot.runtime.RobotTypes.builtIn().names());
        for (String module : dockerfileModules()) {
            types.addAll(factoryTypes(root().resolve(module)));
        }
        int added = 0;
        for (List<String> args : commands(standbyServices().get("robots"))) {
            if (args.size() > 1 && args.get(0).equals("robot") && args.get(1).equals("add")) {
                String type = leaf(parse(args)).matchedOptionValue("--type", "");
                assertTrue(types.contains(type), "type '" + type + "' is built in or in a plugin of the image: " + types);
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

    /** The Maven command of the Dockerfile's build stage. */
    private static String dockerfileBuild() throws IOException {
        List<String> builds = dockerfile().stream().filter(l -> l.startsWith("RUN ") && l.contains("mvn ")).toList();
        assertEquals(1, builds.size(), "one Maven build in the Dockerfile: " + builds);
        return builds.getFirst().substring(builds.getFirst().indexOf("mvn "));
    }

    private static List<String> dockerfileModules() throws IOException {
        Matcher modules = Pattern.compile("-pl (\\S+)").matcher(dockerfileBuild());
        assertTrue(modules.find(), dockerfileBuild());
        return List.of(modules.group(1).split(","));
    }

    @Test
    void theDockerfileBuildsWithTheCommandTheDockerReadmeGives() throws IOException {
        String build = dockerfileBuild();
        List<String> readme = Files.readAllLines(root().resolve("docker/README.md")).stream().map(String::strip).toList();
        assertTrue(readme.contains(build), "docker/README.md gives the Dockerfile's build command as a line of its own:\n" + build);

        List<String> modules = dockerfileModules();
        for (String module : modules) {
            assertTrue(Files.isRegularFile(root().resolve(module).resolve("pom.xml")), "module " + module + " exists");
        }
        List<String> copies = dockerfile().stream().filter(l -> l.startsWith("COPY --from=build ")).toList();
        assertEquals(modules.size(), copies.size(), "one jar copied from each module built: " + copies);
        for (String copy : copies) {
            String source = copy.split(" ")[2];
            assertTrue(modules.stream().anyMatch(m -> source.startsWith("/src/" + m + "/target/")), copy + " comes from a module the build makes");
            String artifactId = Files.readString(root().resolve(source.substring("/src/".length(), source.indexOf("/target/")))
                    .resolve("pom.xml")).replaceAll("(?s).*?</parent>.*?<artifactId>([^<]+)</artifactId>.*", "$1");
            String jar = source.substring(source.lastIndexOf('/') + 1);
            assertTrue(jar.equals("standby.jar") || jar.startsWith(artifactId + "-"), jar + " is what " + artifactId + " builds");
        }
    }

    @Test
    void theImageRunsAsANonRootUserWithStandbyAsEntrypointAndAHealthcheckOnReady() throws IOException {
        List<String> lines = dockerfile();
        List<String> stages = lines.stream().filter(l -> l.startsWith("FROM ")).toList();
        assertEquals(2, stages.size(), "a build stage and a runtime stage: " + stages);
        assertTrue(stages.get(0).startsWith("FROM maven:") && stages.get(0).endsWith(" AS build"), stages.get(0));
        Matcher jre = Pattern.compile("FROM eclipse-temurin:(\\d+)-jre").matcher(stages.get(1));
        assertTrue(jre.matches() && Integer.parseInt(jre.group(1)) >= 21, "a JRE 21 or newer: " + stages.get(1));

        List<String> users = lines.stream().filter(l -> l.startsWith("USER ")).toList();
        assertFalse(users.isEmpty(), "a USER line");
        assertNotEquals("root", users.getLast().substring(5));
        assertNotEquals("0", users.getLast().substring(5));
        assertTrue(lines.contains("ENTRYPOINT [\"standby\"]"), "standby is the entrypoint");
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("HEALTHCHECK ") && l.endsWith("CMD [\"healthcheck\"]")));

        for (String script : List.of("standby", "healthcheck")) {
            Path file = root().resolve("docker").resolve(script);
            assertTrue(Files.isExecutable(file), file + " is executable");
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("COPY ") && l.contains("docker/" + script)), script + " is copied");
        }
        String healthcheck = Files.readString(root().resolve("docker/healthcheck"));
        assertTrue(healthcheck.contains("/ready\""), "the healthcheck asks /ready");
        if (!healthcheck.contains("/proc/1/cmdline")) {
            fail("the healthcheck reads the node's address from its command line");
        }
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
