package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The generated command model (CommandModel) is the annotations' model: every command, option and help text as picocli
 * builds them from the annotations, attribute by attribute, and the same help, completion and parse results.
 */
class CommandModelTest {

    @Test
    void theBuildWroteTheModelAndItServesTheCommandsOnTheWayToTheDatabase() {
        CommandModel model = CommandModel.current();
        assertEquals("io.standby.cli.GeneratedCommandModel", model.getClass().getName());
        for (Class<?> command : List.of(
                StandbyCli.class,
                SlotsCommand.class,
                SlotsCommand.ListSlots.class,
                RobotCommand.class,
                RobotList.class,
                NodesCommand.class,
                StatusCommand.class,
                EventsCommand.class,
                CompleteCommand.class)) {
            assertTrue(model.spec(command) != null, command + " is built without reading annotations");
        }
    }

    @Test
    void everyCommandHasTheAttributesPicocliReadsFromTheAnnotations() {
        Map<String, String> generated = describe(StandbyCli.commandLine(CommandModel.current()));
        Map<String, String> annotations = describe(StandbyCli.commandLine(CommandModel.ANNOTATIONS));
        assertEquals(annotations.keySet(), generated.keySet());
        assertTrue(annotations.size() >= 20, "walked every command: " + annotations.keySet());
        annotations.forEach((name, described) -> assertEquals(described, generated.get(name), name));
    }

    @Test
    void theCompletionScriptIsTheSame() {
        assertEquals(
                AutoComplete.bash("standby", StandbyCli.commandLine(CommandModel.ANNOTATIONS)),
                AutoComplete.bash("standby", StandbyCli.commandLine(CommandModel.current())));
    }

    @Test
    void optionsSetTheFieldsTheyWereReadFrom() {
        CommandLine cli = StandbyCli.commandLine(CommandModel.current(), "slots", "list");
        CommandLine.ParseResult parsed = cli.parseArgs(
                "--mongo", "mongodb://db1:27017", "--db", "prod", "slots", "list", "-o", "wide", "--no-headers");
        StandbyCli root = (StandbyCli) cli.getCommandSpec().userObject();
        assertEquals("mongodb://db1:27017", root.mongo);
        assertEquals("prod", root.db);
        CommandLine list = parsed.subcommand().subcommand().commandSpec().commandLine();
        SlotsCommand.ListSlots command = list.getCommand();
        assertEquals(OutputFormat.WIDE, command.output.format);
        assertTrue(command.output.noHeaders);
        assertTrue(command.spec == list.getCommandSpec(), "the @Spec field is the command's model");
    }

    /** Every command by its qualified name: its attributes, each option's and parameter's, and its usage help. */
    private static Map<String, String> describe(CommandLine cli) {
        Map<String, String> all = new TreeMap<>();
        describe(cli, all);
        return all;
    }

    private static void describe(CommandLine cli, Map<String, String> all) {
        CommandSpec spec = cli.getCommandSpec();
        StringBuilder out = new StringBuilder();
        out.append("name=")
                .append(spec.name())
                .append(" aliases=")
                .append(Arrays.toString(spec.aliases()))
                .append(" scope=")
                .append(spec.scopeType())
                .append(" inherited=")
                .append(spec.inherited())
                .append(" helpCommand=")
                .append(spec.helpCommand())
                .append(" version=")
                .append(Arrays.toString(spec.version()))
                .append(" exitCodes=")
                .append(spec.exitCodeOnSuccess())
                .append(spec.exitCodeOnUsageHelp())
                .append(spec.exitCodeOnVersionHelp())
                .append(spec.exitCodeOnInvalidInput())
                .append(spec.exitCodeOnExecutionException())
                .append(" mixins=")
                .append(spec.mixins().keySet().stream()
                        .map(key -> key.equals(CommandModel.HELP_MIXIN) ? CommandModel.PICOCLI_HELP_MIXIN : key)
                        .sorted()
                        .toList())
                .append(" subcommands=")
                .append(spec.subcommands().keySet())
                .append('\n');
        out.append("usage ").append(fields(spec.usageMessage())).append('\n');
        out.append("parser ").append(fields(spec.parser())).append('\n');
        for (ArgSpec arg : spec.args()) {
            out.append(arg instanceof OptionSpec ? "option " : "positional ")
                    .append(arg(arg))
                    .append('\n');
        }
        StringWriter help = new StringWriter();
        cli.usage(new PrintWriter(help), CommandLine.Help.Ansi.OFF);
        out.append(help);
        all.put(spec.qualifiedName(), out.toString());
        cli.getSubcommands().values().forEach(sub -> describe(sub, all));
    }

    /** An option's or positional parameter's public attributes, but those that are its binding to a field. */
    private static String arg(ArgSpec arg) {
        List<String> skip = List.of(
                "userObject",
                "getter",
                "setter",
                "scope",
                "command",
                "getValue",
                "stringValues",
                "originalStringValues",
                "typedValues",
                "hashCode",
                "getClass",
                "toBuilder",
                "group",
                "root",
                "parameterConsumer",
                "preprocessor",
                "messages",
                "initialValue");
        List<Method> methods = new ArrayList<>();
        for (Method method : arg.getClass().getMethods()) {
            if (method.getParameterCount() == 0
                    && method.getReturnType() != void.class
                    && !Modifier.isStatic(method.getModifiers())
                    && !skip.contains(method.getName())) {
                methods.add(method);
            }
        }
        methods.sort(Comparator.comparing(Method::getName));
        StringBuilder out = new StringBuilder();
        for (Method method : methods) {
            out.append(method.getName())
                    .append('=')
                    .append(value(invoke(method, arg)))
                    .append(' ');
        }
        out.append("initialValue=").append(value(arg.initialValue()));
        out.append(" rootIsSelf=").append(arg.root() == arg);
        out.append(" type=")
                .append(arg.typeInfo().getClassName())
                .append(" aux=")
                .append(arg.typeInfo().getAuxiliaryTypeInfos().stream()
                        .map(CommandLine.Model.ITypeInfo::getClassName)
                        .toList())
                .append(" multi=")
                .append(arg.typeInfo().isMultiValue())
                .append(" enum=")
                .append(arg.typeInfo().getEnumConstantNames());
        if (arg instanceof PositionalParamSpec positional) {
            out.append(" index=").append(positional.index());
        }
        return out.toString();
    }

    private static Object invoke(Method method, Object target) {
        try {
            return method.invoke(target);
        } catch (ReflectiveOperationException e) {
            return "threw " + e.getCause();
        }
    }

    private static String value(Object value) {
        if (value instanceof Object[] array) {
            return Arrays.stream(array)
                    .map(element -> element instanceof CommandLine.ITypeConverter<?>
                            ? element.getClass().getName()
                            : String.valueOf(element))
                    .toList()
                    .toString();
        }
        if (value instanceof CommandLine.Model.ITypeInfo info) {
            return info.getClassName();
        }
        if (value instanceof Iterable<?> iterable) {
            List<String> items = new ArrayList<>();
            iterable.forEach(item -> items.add(String.valueOf(item)));
            return items.toString();
        }
        return String.valueOf(value);
    }

    /** The simple fields of a usage message or parser model: what annotations set, not what builds the text. */
    private static String fields(Object model) {
        StringBuilder out = new StringBuilder();
        for (Field field : model.getClass().getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers())
                    || !(field.getType().isPrimitive()
                            || List.of(
                                            String.class,
                                            String[].class,
                                            Boolean.class,
                                            Character.class,
                                            Integer.class,
                                            Double.class)
                                    .contains(field.getType()))
                    || field.getName().equals("cachedTerminalWidth")) {
                continue;
            }
            field.setAccessible(true);
            try {
                out.append(field.getName())
                        .append('=')
                        .append(value(field.get(model)))
                        .append(' ');
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        return out.toString();
    }
}
