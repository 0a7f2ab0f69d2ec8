package io.standby.cli;

import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.IGetter;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Where the commands' models come from. picocli reads them from the annotations at every start, which cost a one-shot
 * command about 100 ms: Java makes a proxy class for every annotation type it reads (no class cache holds those), and
 * the reflection runs in the interpreter. So the build writes a class (GeneratedCommandModel, by
 * {@link CommandModelWriter}) that builds the same models through picocli's API, from the annotations as picocli read
 * them at build time: the annotations stay the one place where options and help text are written. Without that class
 * (sources compiled by an IDE, say) picocli reads the annotations as before.
 */
abstract class CommandModel {

    /** The key of the standard help options among a command's mixins; picocli's own would make it read annotations. */
    static final String HELP_MIXIN = "standardHelpOptions";

    /** picocli's key for them (CommandLine.AutoHelpMixin), on models that picocli read from the annotations. */
    static final String PICOCLI_HELP_MIXIN = "mixinStandardHelpOptions";

    private static final CommandModel GENERATED = generated();

    /** picocli from the annotations, at run time. */
    static final CommandModel ANNOTATIONS = new CommandModel() {
        @Override
        CommandSpec spec(Class<?> command, Set<String> words) {
            return null;
        }
    };

    /** The generated model if the build wrote it, else picocli's reading of the annotations. */
    static CommandModel current() {
        return GENERATED == null ? ANNOTATIONS : GENERATED;
    }

    /**
     * The model of {@code command}, built without reading its annotations; null where this source has none. Of its
     * subcommands (and theirs) only those {@link #wanted} by {@code words} are built, all where it is null.
     */
    abstract CommandSpec spec(Class<?> command, Set<String> words);

    /** The whole model of {@code command}, every subcommand built. */
    final CommandSpec spec(Class<?> command) {
        return spec(command, null);
    }

    /** The command line of {@code command}: from this model where it has one, else from the annotations. */
    final CommandLine commandLine(Class<?> command, Set<String> words) {
        CommandSpec spec = spec(command, words);
        return spec == null ? new CommandLine(command) : new CommandLine(spec);
    }

    /**
     * Whether a command line for {@code words} (the arguments) needs the subcommand {@code name} of a command whose
     * subcommands are {@code siblings}: all are needed when the words name none of them (help, or a mistyped name that
     * the error message suggests a name for), else those named. A word that is a value and happens to be a subcommand's
     * name only builds one more.
     */
    static boolean wanted(Set<String> words, String name, String... siblings) {
        if (words == null || words.contains(name)) {
            return true;
        }
        for (String sibling : siblings) {
            if (words.contains(sibling)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Adds {@code sub} to {@code parent}, as picocli adds a subcommand to a command whose attributes its subcommands
     * inherit. picocli gives such a subcommand (and its own) -h and -V by reading its help mixin's annotations; here
     * they are given first, from {@link #standardHelp}, unless the parent's help options came from picocli, which then
     * gives them as it always did.
     */
    static void addSubcommand(CommandLine parent, String name, CommandLine sub) {
        CommandSpec spec = parent.getCommandSpec();
        if (spec.mixins().containsKey(HELP_MIXIN) && spec.scopeType() == CommandLine.ScopeType.INHERIT) {
            withStandardHelp(sub.getCommandSpec());
        }
        parent.addSubcommand(name, sub);
    }

    private static void withStandardHelp(CommandSpec spec) {
        standardHelp(spec);
        spec.subcommands().values().forEach(sub -> withStandardHelp(sub.getCommandSpec()));
    }

    /**
     * -h and -V as {@code mixinStandardHelpOptions = true} gives them (picocli's CommandLine.AutoHelpMixin, names,
     * descriptions and keys as there), built without reading annotations; not where the command has either name.
     */
    static void standardHelp(CommandSpec spec) {
        if (spec.mixins().containsKey(HELP_MIXIN)
                || spec.mixins().containsKey(PICOCLI_HELP_MIXIN)
                || spec.findOption("-h") != null
                || spec.findOption("--help") != null
                || spec.findOption("-V") != null
                || spec.findOption("--version") != null) {
            return;
        }
        CommandSpec mixin = CommandSpec.wrapWithoutInspection(null);
        mixin.addOption(helpOption("helpRequested", "${picocli.help.name.0:--h}", "${picocli.help.name.1:---help}")
                .usageHelp(true)
                .descriptionKey("mixinStandardHelpOptions.help")
                .description("Show this help message and exit.")
                .build());
        mixin.addOption(
                helpOption("versionRequested", "${picocli.version.name.0:--V}", "${picocli.version.name.1:---version}")
                        .versionHelp(true)
                        .descriptionKey("mixinStandardHelpOptions.version")
                        .description("Print version information and exit.")
                        .build());
        spec.addMixin(HELP_MIXIN, mixin);
    }

    private static OptionSpec.Builder helpOption(String field, String... names) {
        Flag flag = new Flag();
        return OptionSpec.builder(names)
                .paramLabel("<" + field + ">")
                .prompt("")
                .withToString("field boolean picocli.CommandLine$AutoHelpMixin." + field)
                .type(boolean.class)
                .hasInitialValue(true)
                .initialValue(false)
                .getter(flag)
                .setter(flag);
    }

    /** Where a help option's value goes: nobody reads it, picocli asks the parse result. */
    private static final class Flag implements IGetter, ISetter {
        private Object value = false;

        @SuppressWarnings("unchecked")
        @Override
        public <T> T get() {
            return (T) value;
        }

        @SuppressWarnings("unchecked")
        @Override
        public <T> T set(T value) {
            T old = (T) this.value;
            this.value = value;
            return old;
        }
    }

    private static CommandModel generated() {
        try {
            return (CommandModel) Class.forName("io.standby.cli.GeneratedCommandModel")
                    .getDeclaredConstructor()
                    .newInstance();
        } catch (ClassNotFoundException e) {
            return null;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the generated command model does not load: " + e, e);
        }
    }
}
