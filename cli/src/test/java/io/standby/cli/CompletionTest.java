package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.admin.RobotTable;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
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
        Path script = dir.resolve("standby.bash");
        Files.writeString(script, CliRun.of("completion").out());
        String db = "--mongo " + TestMongo.uri() + " --db " + database.name();

        // --mongo after the cursor counts too: a user often adds the name before the options.
        assertEquals(List.of("slot-0", "slot-1"), complete(shell, script, "standby slots release '' " + db, 3));
        assertEquals(List.of("c1"), complete(shell, script, "standby " + db + " robot show c", 7));
        assertEquals(List.of("slot-1"), complete(shell, script, "standby robot move c1 --slot slot-1 " + db, 5));
        assertEquals(List.of("c1", "d2"), complete(shell, script, "standby events --robot '' " + db, 3));
        // Elsewhere picocli's own completion still answers.
        assertEquals(List.of("release"), complete(shell, script, "standby slots rel", 2));
    }

    /** COMPREPLY for the line's words with the cursor on word {@code cword}, as the shell's TAB would have it. */
    private List<String> complete(String shell, Path script, String line, int cword)
            throws IOException, InterruptedException {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        String setup = shell.equals("zsh")
                ? "autoload -U +X compinit && compinit -u\nautoload -U +X bashcompinit && bashcompinit\n"
                : "";
        String program = setup
                + "standby() { '" + java + "' -cp '" + System.getProperty("java.class.path") + "' "
                + StandbyCli.class.getName() + " \"$@\"; }\n"
                + "source '" + script + "'\n"
                // What bashcompinit sets for a completion function in zsh: arrays from 0.
                + (shell.equals("zsh") ? "setopt ksharrays\n" : "")
                + "COMP_WORDS=(" + line + "); COMP_CWORD=" + cword + "; COMP_LINE=\"${COMP_WORDS[*]}\"\n"
                + "COMP_POINT=${#COMP_LINE}\n"
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
        String typed = line.split(" ")[cword].replace("'", "");
        return offered.stream().filter(w -> w.startsWith(typed)).toList();
    }
}
