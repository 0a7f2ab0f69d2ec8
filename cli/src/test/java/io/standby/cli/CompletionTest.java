package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.admin.RobotTable;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.internal.MongoNodeRegistry;
import io.standby.slot.internal.NodeRegistry;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.bson.Document;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code standby __complete slots|robots|nodes}, which a completion script calls on TAB: the names from the database,
 * and nothing at all (exit 0, no error line) when the database is away; and {@code standby completion} sourced into a
 * real bash, its function called as bash calls it, with {@code standby} running this build in a child JVM.
 */
class CompletionTest {

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    @TempDir
    Path dir;

    @Test
    void theHiddenCommandPrintsNamesAndNothingButExitZeroWhenTheDatabaseIsAway() {
        StandbyDatabase admin = database.connection();
        new SlotTable(admin).init(2);
        new RobotTable(admin)
                .add(new RobotTable.NewRobot("c1", "counter", "slot-1", 0, 1, new Document()), OptionalDouble.empty());
        assertEquals(
                "slot-0\nslot-1\n",
                CliRun.against(database.name(), "__complete", "slots").out());
        assertEquals(
                "c1\n", CliRun.against(database.name(), "__complete", "robots").out());
        long start = System.nanoTime();
        CliRun away = CliRun.of("__complete", "slots", "--mongo", "mongodb://127.0.0.1:1");
        assertEquals(List.of(0, "", ""), List.of(away.exitCode(), away.out(), away.err()));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "gave up quickly");
        CliRun help = CliRun.of("--help");
        assertTrue(!help.out().contains("__complete"), "hidden:\n" + help.out());
    }

    @Test
    void bashCompletesSlotAndRobotNamesWhereTheyGo() throws Exception {
        assertNamesComplete("bash");
    }

    /** zsh runs the same script through bashcompinit, with its arrays counted from 0 as bash's are. */
    @Test
    void zshCompletesTheSameNames() throws Exception {
        Assumptions.assumeTrue(
                Files.isExecutable(Path.of("/usr/bin/zsh")), "zsh is not installed (.ci/run installs Debian's zsh)");
        assertNamesComplete("zsh");
    }

    private void assertNamesComplete(String shell) throws Exception {
        StandbyDatabase admin = database.connection();
        new SlotTable(admin).init(2);
        new RobotTable(admin)
                .add(new RobotTable.NewRobot("c1", "counter", "slot-1", 0, 1, new Document()), OptionalDouble.empty());
        new RobotTable(admin)
                .add(new RobotTable.NewRobot("d2", "counter", "slot-0", 0, 1, new Document()), OptionalDouble.empty());
        new MongoNodeRegistry(admin.database())
                .write(
                        new NodeRegistry.NodeRecord(
                                new NodeId("10.0.0.7", 7700),
                                "i-1",
                                "elsewhere",
                                NodeState.STANDBY,
                                List.of(),
                                1,
                                0,
                                0,
                                0,
                                0,
                                0,
                                "dev",
                                Duration.ofSeconds(20),
                                List.of("counter")),
                        NodeRegistry.Write.FIRST);
        Path script = dir.resolve("standby.bash");
        Files.writeString(script, CliRun.of("completion").out());
        String db = "--mongo " + TestMongo.uri() + " --db " + database.name();

        // The cursor is at '|'. --mongo after it counts too: a user often types the name before the options.
        assertEquals(List.of("slot-0", "slot-1"), complete(shell, script, "standby slots release | " + db));
        assertEquals(List.of("c1"), complete(shell, script, "standby " + db + " robot show c|"));
        assertEquals(List.of("slot-1"), complete(shell, script, "standby robot move c1 --slot slot-1| " + db));
        assertEquals(List.of("c1", "d2"), complete(shell, script, "standby events --robot | " + db));
        assertEquals(
                List.of(shell.equals("bash") ? "7700" : "10.0.0.7:7700"),
                complete(shell, script, "standby " + db + " node drain 10.0.0.7:|"),
                "bash inserts what follows the word's last ':'");
        // Elsewhere picocli's own completion still answers.
        assertEquals(List.of("release"), complete(shell, script, "standby slots rel|"));
    }

    /**
     * Words as the shell's TAB splits them: at blanks, and in bash also around each ':' (COMP_WORDBREAKS), so that
     * {@code --mongo mongodb://h:1} is five words there. A blank or ':' at the end starts an empty word.
     */
    private static List<String> split(String shell, String text) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        for (char c : text.toCharArray()) {
            if (c == ' ' || (c == ':' && shell.equals("bash"))) {
                if (!word.isEmpty()) {
                    words.add(word.toString());
                    word.setLength(0);
                }
                if (c == ':') {
                    words.add(":");
                }
            } else {
                word.append(c);
            }
        }
        // The word being typed last: empty after a blank or a ':'.
        words.add(word.toString());
        return words;
    }

    /**
     * COMPREPLY for {@code typed}, whose '|' marks the cursor, as the shell's TAB would have it: the line and the
     * cursor's place, and the words split at blanks (bash splits at ':' too, which the script reads past).
     */
    private List<String> complete(String shell, Path script, String typed) throws IOException, InterruptedException {
        int cursor = typed.indexOf('|');
        String line = typed.replace("|", "");
        // The words as the shell splits them, the cursor at the end of one (as in every case here).
        List<String> words = split(shell, line.substring(0, cursor));
        int cword = words.size() - 1;
        words.addAll(split(shell, line.substring(cursor).strip()));
        if (words.getLast().isEmpty() && words.size() > cword + 1) {
            words.removeLast();
        }
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        String setup = shell.equals("zsh")
                ? "autoload -U +X compinit && compinit -u\nautoload -U +X bashcompinit && bashcompinit\n"
                : "";
        String program = setup
                // As the launcher runs a one-shot command: a JVM a completion, twelve in this class.
                + "standby() { '" + java + "' -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp '"
                + System.getProperty("java.class.path") + "' "
                + StandbyCli.class.getName() + " \"$@\"; }\n"
                + "source '" + script + "'\n"
                // What bashcompinit sets for a completion function in zsh: arrays from 0.
                + (shell.equals("zsh") ? "setopt ksharrays\n" : "")
                + "COMP_WORDS=("
                + words.stream().map(w -> "'" + w + "'").collect(Collectors.joining(" "))
                + "); COMP_CWORD=" + cword + "\n"
                + "COMP_LINE='" + line + "'; COMP_POINT=" + cursor + "\n"
                // picocli's function calls compopt, which bash allows only under a real TAB: its complaint here is
                // no completion.
                + "_standby_names standby \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\" 2>/dev/null\n"
                + "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
        Process process = new ProcessBuilder(shell, "-c", program)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        List<String> offered = out.lines()
                .filter(l -> !l.isBlank())
                .map(String::strip)
                .sorted()
                .toList();
        // zsh's compgen offers every word and leaves the prefix to compadd, which shows only what starts with the
        // word under the cursor: filtered here as compadd would.
        String prefix = shell.equals("zsh") ? words.get(cword) : "";
        return offered.stream().filter(w -> w.startsWith(prefix)).toList();
    }
}
