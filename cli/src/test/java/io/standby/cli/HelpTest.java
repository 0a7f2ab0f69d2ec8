package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** Every command's --help: examples, the exit codes, and nothing cut in the middle of an address or a name. */
class HelpTest {

    private static List<CommandLine> everyCommand(CommandLine cli) {
        List<CommandLine> all = new ArrayList<>(List.of(cli));
        cli.getSubcommands().values().stream()
                .filter(sub -> !sub.getCommandName().equals("help"))
                .forEach(sub -> all.addAll(everyCommand(sub)));
        return all;
    }

    @Test
    void everyCommandHasExamplesAndTheExitCodesAndFitsEightyColumns() {
        List<CommandLine> commands = everyCommand(StandbyCli.commandLine());
        assertTrue(commands.size() >= 17, "walked every command: " + commands.size());
        for (CommandLine command : commands) {
            String name = command.getCommandSpec().qualifiedName();
            CliRun help = CliRun.of(helpArgs(name));
            assertEquals(0, help.exitCode(), name);
            String text = help.out();
            assertTrue(text.contains("Examples:\n  " + name.split(" ")[0]), name + " has examples:\n" + text);
            assertTrue(
                    text.contains("Exit codes:\n   0   done\n   1   the command failed"),
                    name + " has the exit codes:\n" + text);
            for (String line : text.split("\n")) {
                assertTrue(line.length() <= 80, name + ": a line over 80 columns: " + line);
            }
            for (String whole :
                    List.of("mongodb://127.0.0.1:27017", "META-INF/services/io.standby.robot.RobotFactory")) {
                String start = whole.substring(0, 12);
                if (text.contains(start)) {
                    assertTrue(text.contains(whole), name + " cuts " + whole + ":\n" + text);
                }
            }
        }
    }

    @Test
    void aCommandBuildsOnlyTheSubcommandsItsArgumentsNameAndHelpOrATypoBuildsAll() {
        Set<String> all = StandbyCli.commandLine().getSubcommands().keySet();
        assertEquals(
                Set.of(
                        "demo",
                        "mongo",
                        "slots",
                        "robot",
                        "node",
                        "nodes",
                        "status",
                        "events",
                        "health",
                        "help",
                        "completion"),
                all);
        assertEquals(
                Set.of("slots"),
                StandbyCli.commandLine("--db", "x", "slots", "list", "-o", "json")
                        .getSubcommands()
                        .keySet());
        assertEquals(
                Set.of("list"),
                StandbyCli.commandLine("slots", "list")
                        .getSubcommands()
                        .get("slots")
                        .getSubcommands()
                        .keySet());
        assertEquals(
                Set.of("init", "list", "release"),
                StandbyCli.commandLine("slots", "--help")
                        .getSubcommands()
                        .get("slots")
                        .getSubcommands()
                        .keySet());
        assertEquals(
                Set.of("robot", "demo"),
                StandbyCli.commandLine("robot", "add", "demo", "--type", "counter")
                        .getSubcommands()
                        .keySet());
        for (String[] args : List.of(
                new String[0],
                new String[] {"--help"},
                new String[] {"slts"},
                new String[] {"help", "slots"},
                new String[] {"completion"})) {
            assertEquals(all, StandbyCli.commandLine(args).getSubcommands().keySet(), String.join(" ", args));
        }
        CliRun typo = CliRun.of("slts", "list");
        assertEquals(
                "standby: unknown command 'slts' (did you mean 'slots'?) (see 'standby --help')", typo.errorLine());
    }

    @Test
    void completionPrintsAScriptForBashAndZsh() {
        CliRun run = CliRun.of("completion");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(
                run.out().contains("complete -F _complete_standby") && run.out().contains("robot"), run.out());
    }

    /**
     * The embedded server, the demo (its own in-memory database) and the completion script are clients of no database
     * given on the command line: --mongo and --db would be silently ignored, so they refuse them. (The health check
     * takes a node's whole command line, theirs included, to find the node's address.)
     */
    @ParameterizedTest
    @ValueSource(strings = {"mongo --in-memory", "demo", "completion"})
    void aCommandThatIsNoClientOfTheGivenDatabaseRefusesItsOptions(String command) {
        String[] words = command.split(" ");
        String help = CliRun.of(words[0], "--help").out();
        assertFalse(help.contains("--mongo") || help.contains("--db"), help);
        for (String option : List.of("--db", "--mongo")) {
            List<String> args = new ArrayList<>(List.of(words));
            args.addAll(List.of(option, "x"));
            CliRun run = CliRun.of(args.toArray(String[]::new));
            assertEquals(2, run.exitCode(), run.err());
            assertTrue(run.errorLine().contains(option), run.errorLine());
        }
    }

    private static String[] helpArgs(String qualifiedName) {
        List<String> args = new ArrayList<>(List.of(qualifiedName.split(" ")));
        args.removeFirst();
        args.add("--help");
        return args.toArray(String[]::new);
    }
}
