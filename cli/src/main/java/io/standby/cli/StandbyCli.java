package io.standby.cli;

import io.standby.slot.StandbyDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code standby} command. Every failure the user can cause ends in one line on standard error naming the bad
 * value, and a non-zero exit code; no stack trace unless {@code STANDBY_DEBUG=1}.
 */
// Every subcommand inherits -h and -V from here: a mixin of them in each one was a reflective pass per command, which a
// one-shot command pays before it does anything.
@Command(
        name = "standby",
        mixinStandardHelpOptions = true,
        scope = ScopeType.INHERIT,
        footerHeading = "%nExamples:%n",
        footer = {
            "  standby mongo --in-memory                 # a database to try things on",
            "  standby slots init --count 3",
            "  standby node --ip 127.0.0.1 --port 7701",
            "  standby robot add c1 --type counter",
            "  standby nodes"
        },
        versionProvider = StandbyCli.Version.class,
        description = "Runs long-lived robots on interchangeable nodes, coordinated only through MongoDB slots.")
public final class StandbyCli {

    /** The subcommands by name, in the order help lists them (then 'completion'). */
    private static final Map<String, Class<?>> COMMANDS = new LinkedHashMap<>();

    static {
        COMMANDS.put("demo", DemoCommand.class);
        COMMANDS.put("mongo", MongoCommand.class);
        COMMANDS.put("slots", SlotsCommand.class);
        COMMANDS.put("robot", RobotCommand.class);
        COMMANDS.put("node", NodeCommand.class);
        COMMANDS.put("nodes", NodesCommand.class);
        COMMANDS.put("status", StatusCommand.class);
        COMMANDS.put("events", EventsCommand.class);
        COMMANDS.put("health", HealthCommand.class);
        COMMANDS.put("help", CommandLine.HelpCommand.class);
    }

    /** The classes of every subcommand the command line adds itself (their own subcommands are in annotations). */
    static List<Class<?>> commandClasses() {
        List<Class<?>> classes = new java.util.ArrayList<>(COMMANDS.values());
        classes.add(CompletionScript.class);
        classes.add(CompleteCommand.class);
        return classes;
    }

    /** Admin commands give up on an unreachable database after this long. */
    static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(3);

    @Option(
            names = "--mongo",
            scope = ScopeType.INHERIT,
            paramLabel = "URI",
            defaultValue = "${env:STANDBY_MONGO_URI:-" + StandbyDatabase.DEFAULT_URI + "}",
            description = "MongoDB URI (env STANDBY_MONGO_URI),%ndefault: ${DEFAULT-VALUE}")
    String mongo;

    @Option(
            names = "--db",
            scope = ScopeType.INHERIT,
            paramLabel = "NAME",
            defaultValue = "${env:STANDBY_DB:-" + StandbyDatabase.DEFAULT_NAME + "}",
            description = "Database name (env STANDBY_DB; default: ${DEFAULT-VALUE}).")
    String db;

    @Option(
            names = "--log-format",
            scope = ScopeType.INHERIT,
            paramLabel = "text|json",
            converter = LogFormat.Converter.class,
            defaultValue = "${env:" + LogFormat.VARIABLE + ":-text}",
            description = "Logs on standard error as text, or as one JSON object a line for log shippers " + "(env "
                    + LogFormat.VARIABLE + "; default: text).")
    void logFormat(String format) {
        LogFormat.use(format);
    }

    /** The commands that run until stopped, and log from their start: no use deferring logback for them. */
    private static final Set<String> LONG_RUNNING = Set.of("node", "mongo", "demo");

    public static void main(String[] args) {
        if (Collections.disjoint(Arrays.asList(args), LONG_RUNNING)) {
            DeferredLogging.install();
        }
        System.exit(run(args));
    }

    /** Runs the command line and returns the exit code. */
    public static int run(String... args) {
        return commandLine(args).execute(args);
    }

    /** The whole command line, every subcommand built. */
    static CommandLine commandLine() {
        return commandLine(new String[0]);
    }

    /**
     * The command line that {@code args} need: every subcommand's model costs (by reflection over the annotations it
     * was a quarter of a one-shot command's time; through picocli's API still milliseconds each, interpreted). So only
     * the subcommands whose names occur among the arguments are built, at every level; all of them when none does
     * (help, suggestions for a mistyped command) or for {@code help} and {@code completion}, which show them all.
     */
    static CommandLine commandLine(String... args) {
        return commandLine(CommandModel.current(), args);
    }

    /** {@link #commandLine(String...)} with the models from {@code model}. */
    static CommandLine commandLine(CommandModel model, String... args) {
        Set<String> words = Set.copyOf(Arrays.asList(args));
        boolean all = words.contains("help")
                || words.contains("completion")
                || COMMANDS.keySet().stream().noneMatch(words::contains);
        // The subcommands' own subcommands likewise (CommandModel.wanted).
        Set<String> branch = all ? null : words;
        CommandLine cli = model.commandLine(StandbyCli.class, branch);
        COMMANDS.forEach((name, command) -> {
            if (all || words.contains(name)) {
                CommandModel.addSubcommand(cli, name, model.commandLine(command, branch));
            }
        });
        cli.setExecutionExceptionHandler(StandbyCli::onFailure);
        cli.setParameterExceptionHandler(StandbyCli::onBadArguments);
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        if (all) {
            CommandModel.addSubcommand(cli, "completion", model.commandLine(CompletionScript.class, branch));
        }
        if (words.contains("__complete")) {
            CommandModel.addSubcommand(cli, "__complete", model.commandLine(CompleteCommand.class, branch));
        }
        withExitCodes(cli);
        // The embedded server, the demo (its own in-memory database), the completion script and the health check are
        // clients of no database given here: --mongo and --db would be silently ignored. (The health check takes a
        // node's whole command line, those two included, among its unmatched arguments.)
        for (String command : List.of("mongo", "demo", "completion", "health")) {
            if (!cli.getSubcommands().containsKey(command)) {
                continue;
            }
            CommandLine.Model.CommandSpec spec =
                    cli.getSubcommands().get(command).getCommandSpec();
            for (String option : List.of("--mongo", "--db")) {
                spec.remove(spec.findOption(option));
            }
        }
        return cli;
    }

    /** Every command's help ends with the same exit codes. */
    private static void withExitCodes(CommandLine cli) {
        Map<String, String> codes = new LinkedHashMap<>();
        codes.put(" 0", "done");
        codes.put(
                " 1",
                "the command failed (the database unreachable, an unknown slot, robot or node, a port in use...)");
        codes.put(" 2", "what was typed is wrong (an unknown command or option, a missing or bad value)");
        cli.getCommandSpec()
                .usageMessage()
                .exitCodeListHeading("%nExit codes:%n")
                .exitCodeList(codes);
        cli.getSubcommands().values().forEach(StandbyCli::withExitCodes);
    }

    /** Opens the database for a short administrative command and checks that it answers. */
    StandbyDatabase connect(Duration timeout) {
        StandbyDatabase database = Flags.usage(() -> StandbyDatabase.connect(mongo, db, timeout, null));
        try {
            database.ping();
            return database;
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    private static int onBadArguments(CommandLine.ParameterException e, String[] args) {
        return usageError(
                e.getCommandLine(),
                unknownCommand(e).or(() -> fromEnvironment(e)).orElse(oneLine(e.getMessage())));
    }

    /**
     * A bad value that came from an environment variable rather than from what was typed: the message names the
     * variable, since the option is nowhere on the command line.
     */
    private static Optional<String> fromEnvironment(CommandLine.ParameterException e) {
        if (!(e.getArgSpec() instanceof CommandLine.Model.OptionSpec option)) {
            return Optional.empty();
        }
        return Environment.variable(e.getCommandLine(), option)
                .map(name -> "invalid " + name + "='" + System.getenv(name)
                        + "' (the default of " + option.longestName() + "): "
                        + oneLine(e.getMessage())
                                .replaceFirst("^Invalid value for option '[^']*'( \\([^)]*\\))?: ", ""));
    }

    /** A word where a subcommand belongs, named as a command, with the closest one if any is close. */
    private static Optional<String> unknownCommand(CommandLine.ParameterException e) {
        CommandLine cli = e.getCommandLine();
        if (!(e instanceof CommandLine.UnmatchedArgumentException unmatched)
                || cli.getSubcommands().isEmpty()
                || unmatched.getUnmatched().isEmpty()
                || unmatched.getUnmatched().getFirst().startsWith("-")) {
            return Optional.empty();
        }
        String word = unmatched.getUnmatched().getFirst();
        String parent = cli.getCommandSpec().qualifiedName().replaceFirst("^standby ?", "");
        String prefix = parent.isEmpty() ? "" : parent + " ";
        // picocli's suggestions are loose ('bogus' -> 'robot'): only one that starts like the word is offered.
        List<String> close = unmatched.getSuggestions().stream()
                .filter(s -> cli.getSubcommands().containsKey(s) && !word.isEmpty() && s.charAt(0) == word.charAt(0))
                .toList();
        return Optional.of("unknown command '" + prefix + word + "'"
                + (close.isEmpty() ? "" : " (did you mean '" + prefix + close.getFirst() + "'?)"));
    }

    /** Exit code 2: what was typed is wrong, whether the parser or a later check found it. */
    private static int usageError(CommandLine cli, String message) {
        PrintWriter err = cli.getErr();
        err.println("standby: " + message + " (see '" + cli.getCommandSpec().qualifiedName() + " --help')");
        err.flush();
        return 2;
    }

    private static int onFailure(Exception e, CommandLine cli, CommandLine.ParseResult parsed) {
        PrintWriter err = cli.getErr();
        if (e instanceof Flags.UsageError) {
            if ("1".equals(System.getenv("STANDBY_DEBUG"))) {
                e.printStackTrace(err);
            }
            return usageError(cli, Environment.naming(cli, oneLine(e.getMessage())));
        }
        if (e instanceof IllegalArgumentException || e instanceof IllegalStateException || e instanceof UserError) {
            err.println("standby: " + oneLine(e.getMessage()));
        } else {
            err.println("standby: unexpected error: " + oneLine(String.valueOf(e)));
        }
        if ("1".equals(System.getenv("STANDBY_DEBUG"))) {
            e.printStackTrace(err);
        }
        err.flush();
        return 1;
    }

    private static String oneLine(String message) {
        if (message == null) {
            return "unknown error";
        }
        String line = message.strip();
        int newline = line.indexOf('\n');
        return newline < 0 ? line : line.substring(0, newline).strip();
    }

    /** A failure the user caused and can fix; its message is the whole story. */
    static final class UserError extends RuntimeException {
        UserError(String message) {
            super(message);
        }
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            Properties properties = new Properties();
            try (InputStream in = StandbyCli.class.getResourceAsStream("/standby-version.properties")) {
                if (in != null) {
                    properties.load(in);
                }
            }
            return new String[] {
                "standby " + properties.getProperty("version", "unknown") + " (Java " + Runtime.version() + ")"
            };
        }
    }
}
