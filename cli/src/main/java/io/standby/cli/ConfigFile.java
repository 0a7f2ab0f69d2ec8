package io.standby.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code --config FILE}: a properties file whose keys are a command's option names without the dashes
 * ({@code heartbeat=3s}, {@code max-slots=4}, {@code mongo=mongodb://...}). Its settings become options and go through
 * the parser like typed ones; an option on the command line wins over the file.
 */
final class ConfigFile {

    /** Options a file cannot set: the file itself, and the ones that print and exit. */
    private static final Set<String> NOT_SETTINGS = Set.of("config", "help", "version");

    private ConfigFile() {}

    /**
     * The arguments the command line would have been with the file's settings written out: the original arguments
     * without {@code --config}, then each setting the command line does not give.
     *
     * @throws Flags.UsageError naming the file, for a file that cannot be read or a key that is no option
     */
    static String[] expand(Path file, CommandSpec command) {
        Properties settings = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            settings.load(in);
        } catch (IOException | IllegalArgumentException e) {
            throw Flags.invalid("invalid --config '" + file + "': " + MongoCommand.rootMessage(e));
        }
        List<String> args = new ArrayList<>();
        List<String> original = command.commandLine().getParseResult().originalArgs();
        for (int i = 0; i < original.size(); i++) {
            String arg = original.get(i);
            if (arg.equals("--config")) {
                i++;
            } else if (!arg.startsWith("--config=")) {
                args.add(arg);
            }
        }
        for (String key : new TreeSet<>(settings.stringPropertyNames())) {
            OptionSpec option = command.findOption("--" + key);
            if (option == null || NOT_SETTINGS.contains(key)) {
                throw Flags.invalid("invalid --config '" + file + "': '" + key + "' is not a setting of '"
                        + command.qualifiedName() + "' (the keys are its options without '--', e.g. heartbeat=3s)");
            }
            if (!given(command, option)) {
                args.add("--" + key + "=" + settings.getProperty(key).strip());
            }
        }
        return args.toArray(String[]::new);
    }

    /** Whether the command line gave the option, on this command or, for an inherited one, on a parent. */
    private static boolean given(CommandSpec command, OptionSpec option) {
        for (CommandLine cli = command.commandLine(); cli != null; cli = cli.getParent()) {
            if (cli.getParseResult() != null && cli.getParseResult().hasMatchedOption(option.longestName())) {
                return true;
            }
        }
        return false;
    }
}
