package io.standby.cli;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Model.UsageMessageSpec;

/**
 * Writes and compiles GeneratedCommandModel (see {@link CommandModel}), at build time: it lets picocli read every
 * command's annotations, then writes code that builds each model through picocli's API, binding options straight to the
 * fields they were read from. Whatever it cannot reproduce exactly it refuses, failing the build; the tests compare
 * both models of every command, attribute by attribute, and their help and completion output.
 *
 * <p>Usage: {@code CommandModelWriter CLASSES_DIR SOURCES_DIR}.
 */
final class CommandModelWriter {

    private static final String NAME = "GeneratedCommandModel";

    private final Map<Class<?>, Integer> ids = new LinkedHashMap<>();
    private final List<String> methods = new ArrayList<>();
    private final List<String> bindings = new ArrayList<>();

    public static void main(String[] args) throws IOException {
        Path classes = Path.of(args[0]);
        Path sources = Path.of(args[1]);
        String source = new CommandModelWriter().write(roots());
        Path file = sources.resolve("io/standby/cli/" + NAME + ".java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, source, StandardCharsets.UTF_8);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int code = javac.run(
                null,
                null,
                null,
                "-nowarn",
                "-proc:none",
                "-encoding",
                "UTF-8",
                "--release",
                "21",
                "-cp",
                System.getProperty("java.class.path"),
                "-d",
                classes.toString(),
                file.toString());
        if (code != 0) {
            throw new IllegalStateException("the generated command model does not compile: " + file);
        }
    }

    /** Every command the command line adds by class; their subcommands follow from their annotations. */
    static List<Class<?>> roots() {
        List<Class<?>> roots = new ArrayList<>();
        roots.add(StandbyCli.class);
        roots.addAll(StandbyCli.commandClasses());
        return roots;
    }

    String write(List<Class<?>> roots) {
        for (Class<?> root : roots) {
            if (root.getName().startsWith("picocli.")) {
                continue;
            }
            List<Class<?>> known = new ArrayList<>(ids.keySet());
            int[] sizes = {methods.size(), bindings.size(), members.size()};
            try {
                command(root);
            } catch (Refused e) {
                // Left to picocli, which reads its annotations when the command is used: as before, only slower.
                System.out.println(
                        "CommandModelWriter: " + root.getSimpleName() + " is left to picocli: " + e.getMessage());
                ids.keySet().retainAll(known);
                methods.subList(sizes[0], methods.size()).clear();
                bindings.subList(sizes[1], bindings.size()).clear();
                members.subList(sizes[2], members.size()).clear();
            }
        }
        StringBuilder out = new StringBuilder();
        out.append("package io.standby.cli;\n\n")
                .append("import picocli.CommandLine;\n")
                .append("import picocli.CommandLine.Model.CommandSpec;\n")
                .append("import picocli.CommandLine.Model.OptionSpec;\n")
                .append("import picocli.CommandLine.Model.PositionalParamSpec;\n\n")
                .append("/** Written at build time by CommandModelWriter from the commands' annotations: ")
                .append("do not edit. */\n")
                .append("@SuppressWarnings({\"unchecked\", \"rawtypes\", \"deprecation\"})\n")
                .append("final class ")
                .append(NAME)
                .append(" extends CommandModel {\n\n")
                .append("    @Override\n    CommandSpec spec(Class<?> command, java.util.Set<String> words) {\n")
                .append("        return switch (command.getName()) {\n");
        ids.forEach((type, id) -> out.append("            case \"")
                .append(type.getName())
                .append("\" -> c")
                .append(id)
                .append("(words);\n"));
        out.append("            default -> null;\n        };\n    }\n");
        methods.forEach(out::append);
        out.append("\n    private static OptionSpec.Builder bind(OptionSpec.Builder arg, Object target, int id) {\n")
                .append("        Binding binding = new Binding(target, id);\n")
                .append("        return arg.setter(binding).getter(binding);\n    }\n")
                .append("\n    private static PositionalParamSpec.Builder bind(")
                .append("PositionalParamSpec.Builder arg, Object target, int id) {\n")
                .append("        Binding binding = new Binding(target, id);\n")
                .append("        return arg.setter(binding).getter(binding);\n    }\n")
                .append("\n    /** The fields and setter methods the options were read from. */\n")
                .append("    private static final class Binding implements CommandLine.Model.IGetter, ")
                .append("CommandLine.Model.ISetter {\n")
                .append("        private final Object target;\n        private final int id;\n")
                .append("        private Object last;\n\n")
                .append("        Binding(Object target, int id) {\n            this.target = target;\n")
                .append("            this.id = id;\n        }\n\n")
                .append("        @Override\n        public <T> T get() {\n            return (T) switch (id) {\n");
        for (int i = 0; i < bindings.size(); i++) {
            out.append("                case ")
                    .append(i)
                    .append(" -> ")
                    .append(getter(i))
                    .append(";\n");
        }
        out.append("                default -> throw new IllegalStateException(\"binding \" + id);\n")
                .append("            };\n        }\n\n")
                .append("        @Override\n        public <T> T set(T value) {\n")
                .append("            T old = get();\n            switch (id) {\n");
        for (int i = 0; i < bindings.size(); i++) {
            out.append("                case ")
                    .append(i)
                    .append(" -> ")
                    .append(setter(i))
                    .append(";\n");
        }
        out.append("                default -> throw new IllegalStateException(\"binding \" + id);\n")
                .append("            }\n            last = value;\n            return old;\n        }\n    }\n}\n");
        return out.toString();
    }

    private final List<Member> members = new ArrayList<>();
    private int mixinCount;

    private String getter(int id) {
        Member member = members.get(id);
        if (member instanceof Field field) {
            return "((" + name(field.getDeclaringClass()) + ") target)." + field.getName();
        }
        return "last";
    }

    private String setter(int id) {
        Member member = members.get(id);
        String target = "((" + name(member.getDeclaringClass()) + ") target).";
        if (member instanceof Field field) {
            return target + field.getName() + " = (" + boxed(field.getType()) + ") value";
        }
        Method method = (Method) member;
        return target + method.getName() + "((" + boxed(method.getParameterTypes()[0]) + ") value)";
    }

    private int binding(Member member) {
        if (Modifier.isPrivate(member.getModifiers()) || Modifier.isStatic(member.getModifiers())) {
            throw refuse(member + ": an option's field or method must be an instance member, not private");
        }
        if (member instanceof Method method && method.getParameterCount() != 1) {
            throw refuse(member + ": an option's method must be a setter");
        }
        members.add(member);
        bindings.add(member.toString());
        return members.size() - 1;
    }

    /** The method that builds {@code type}'s model; its id. */
    private int command(Class<?> type) {
        Integer known = ids.get(type);
        if (known != null) {
            return known;
        }
        int id = ids.size();
        ids.put(type, id);
        CommandSpec spec = new CommandLine(type).getCommandSpec();
        StringBuilder m = new StringBuilder();
        m.append("\n    static CommandSpec c").append(id).append("(java.util.Set<String> words) {\n");
        m.append("        ")
                .append(name(type))
                .append(" command = ")
                .append(instance(type))
                .append(";\n");
        m.append("        CommandSpec spec = CommandSpec.wrapWithoutInspection(command);\n");
        commandAttributes(m, spec);
        usageMessage(m, spec.usageMessage());
        String siblings = literals(spec.subcommands().keySet().toArray(new String[0]));
        for (Map.Entry<String, CommandLine> sub : spec.subcommands().entrySet()) {
            Class<?> subType = sub.getValue().getCommandSpec().userObject().getClass();
            if (!sub.getKey().equals(sub.getValue().getCommandSpec().name())) {
                throw refuse(type + ": subcommand aliases");
            }
            m.append("        if (CommandModel.wanted(words, ")
                    .append(literal(sub.getKey()))
                    .append(", ")
                    .append(siblings)
                    .append(")) {\n            spec.addSubcommand(")
                    .append(literal(sub.getKey()))
                    .append(", new CommandLine(c")
                    .append(command(subType))
                    .append("(words)));\n        }\n");
        }
        Map<CommandSpec, String> mixinNames = new LinkedHashMap<>();
        spec.mixins().forEach((name, mixin) -> {
            if (!name.equals(CommandModel.PICOCLI_HELP_MIXIN)) {
                mixinNames.put(mixin, name);
            }
        });
        Set<String> mixinsDone = new LinkedHashSet<>();
        for (ArgSpec arg : spec.args()) {
            Member member = member(arg);
            if (member.getDeclaringClass().isAssignableFrom(type)) {
                m.append("        spec.add(")
                        .append(arg(arg, "command", member))
                        .append(");\n");
                continue;
            }
            String mixin = mixinNames.entrySet().stream()
                    .filter(e -> e.getKey().args().contains(arg))
                    .map(Map.Entry::getValue)
                    .findFirst()
                    .orElse(null);
            if (mixin == null) {
                if (member.getDeclaringClass().getName().startsWith("picocli.")) {
                    continue; // the standard help options, given below
                }
                throw refuse(type + ": " + arg + " comes neither from the command nor from a mixin");
            }
            if (mixinsDone.add(mixin)) {
                mixin(m, type, spec, mixin);
            }
        }
        if (!mixinsDone.containsAll(mixinNames.values())) {
            throw refuse(type + ": a mixin without options");
        }
        for (Field field : fields(type)) {
            if (field.isAnnotationPresent(CommandLine.Spec.class)) {
                if (field.getAnnotation(CommandLine.Spec.class).value() != CommandLine.Spec.Target.SELF
                        || Modifier.isPrivate(field.getModifiers())) {
                    throw refuse(field + ": only a non-private @Spec of the command itself");
                }
                m.append("        command.").append(field.getName()).append(" = spec;\n");
            }
            for (Class<? extends java.lang.annotation.Annotation> unsupported :
                    List.of(CommandLine.ParentCommand.class, CommandLine.ArgGroup.class, CommandLine.Unmatched.class)) {
                if (field.isAnnotationPresent(unsupported)) {
                    throw refuse(field + ": @" + unsupported.getSimpleName());
                }
            }
        }
        if (spec.mixins().containsKey(CommandModel.PICOCLI_HELP_MIXIN)) {
            m.append("        CommandModel.standardHelp(spec);\n");
        }
        m.append("        return spec;\n    }\n");
        methods.add(m.toString());
        return id;
    }

    private void mixin(StringBuilder m, Class<?> type, CommandSpec spec, String name) {
        CommandSpec mixin = spec.mixins().get(name);
        Object element = spec.mixinAnnotatedElements().get(name).userObject();
        if (!(element instanceof Field field) || Modifier.isPrivate(field.getModifiers())) {
            throw refuse(type + ": mixin " + name + " must be a non-private field");
        }
        Class<?> mixinType = field.getType();
        if (mixin.subcommands().size() > 0
                || mixin.name() != null && !mixin.name().equals("<main class>")) {
            throw refuse(type + ": mixin " + name + " with a name or subcommands");
        }
        String variable = "mixin" + ++mixinCount;
        m.append("        ")
                .append(name(mixinType))
                .append(' ')
                .append(variable)
                .append(" = ")
                .append(instance(mixinType))
                .append(";\n");
        m.append("        command.")
                .append(field.getName())
                .append(" = ")
                .append(variable)
                .append(";\n");
        m.append("        CommandSpec ")
                .append(variable)
                .append("Spec = CommandSpec.wrapWithoutInspection(")
                .append(variable)
                .append(");\n");
        for (ArgSpec arg : mixin.args()) {
            m.append("        ")
                    .append(variable)
                    .append("Spec.add(")
                    .append(arg(arg, variable, member(arg)))
                    .append(");\n");
        }
        m.append("        spec.addMixin(")
                .append(literal(name))
                .append(", ")
                .append(variable)
                .append("Spec);\n");
    }

    private static Member member(ArgSpec arg) {
        if (arg.userObject() instanceof Field field) {
            return field;
        }
        if (arg.userObject() instanceof Method method) {
            return method;
        }
        throw refuse(arg + ": not bound to a field or method");
    }

    private String arg(ArgSpec arg, String target, Member member) {
        int binding = binding(member);
        StringBuilder b = new StringBuilder();
        if (arg instanceof OptionSpec option) {
            OptionSpec.Builder o = option.toBuilder();
            b.append("OptionSpec.builder(").append(literals(o.names())).append(")");
            flag(b, "usageHelp", o.usageHelp());
            flag(b, "versionHelp", o.versionHelp());
            flag(b, "help", o.help());
            flag(b, "negatable", o.negatable());
            if (o.fallbackValue() != null && !o.fallbackValue().isEmpty()) {
                b.append(".fallbackValue(").append(literal(o.fallbackValue())).append(")");
            }
            if (o.order() != -1) {
                b.append(".order(").append(o.order()).append(")");
            }
            common(b, arg, attributes(o));
        } else {
            PositionalParamSpec.Builder p = ((PositionalParamSpec) arg).toBuilder();
            b.append("PositionalParamSpec.builder()");
            if (p.index() != null && !p.index().isUnspecified()) {
                b.append(".index(").append(literal(p.index().originalValue())).append(")");
            }
            common(b, arg, attributes(p));
        }
        if (!(member instanceof Field)) {
            // A setter method has no value to start from.
            b.append(".hasInitialValue(false)");
        } else {
            b.append(".hasInitialValue(true).initialValue(")
                    .append(target)
                    .append('.')
                    .append(member.getName())
                    .append(")");
        }
        return "bind(" + b + ", " + target + ", " + binding + ").build()";
    }

    private static void common(StringBuilder b, ArgSpec arg, Attributes a) {
        if (a.arity() != null && !a.arity().isUnspecified()) {
            b.append(".arity(").append(literal(a.arity().originalValue())).append(")");
        }
        flag(b, "required", a.required());
        flag(b, "hidden", a.hidden());
        flag(b, "hideParamSyntax", a.hideParamSyntax());
        flag(b, "interactive", a.interactive());
        if (a.paramLabel() != null) {
            b.append(".paramLabel(").append(literal(a.paramLabel())).append(")");
        }
        if (a.description() != null && a.description().length > 0) {
            b.append(".description(").append(literals(a.description())).append(")");
        }
        if (a.descriptionKey() != null) {
            b.append(".descriptionKey(").append(literal(a.descriptionKey())).append(")");
        }
        if (a.prompt() != null) {
            b.append(".prompt(").append(literal(a.prompt())).append(")");
        }
        if (a.defaultValue() != null) {
            b.append(".defaultValue(").append(literal(a.defaultValue())).append(")");
            if (a.defaultValue().contains("${env:")) {
                // The variable a complaint about the value names: Environment reads it here, not in the annotation.
                b.append(".userObject(new Environment.Declared(")
                        .append(literal(a.defaultValue()))
                        .append("))");
            }
        }
        // Some of picocli's messages name an option by this.
        b.append(".withToString(").append(literal(arg.toString())).append(")");
        if (a.splitRegex() != null && !a.splitRegex().isEmpty()
                || !List.of("__unspecified__", CommandLine.Option.NULL_VALUE).contains(a.mapFallbackValue())
                || a.parameterConsumer() != null
                || a.scopeType() != CommandLine.ScopeType.LOCAL && a.scopeType() != CommandLine.ScopeType.INHERIT
                || a.showDefaultValue() != CommandLine.Help.Visibility.ON_DEMAND) {
            throw refuse(arg + ": split, map fallback, parameter consumer, scope or showDefaultValue");
        }
        if (a.scopeType() == CommandLine.ScopeType.INHERIT) {
            b.append(".scopeType(CommandLine.ScopeType.INHERIT)");
        }
        b.append(".type(").append(name(a.type())).append(".class)");
        if (a.auxiliaryTypes() != null && a.auxiliaryTypes().length > 0) {
            b.append(".auxiliaryTypes(")
                    .append(Arrays.stream(a.auxiliaryTypes())
                            .map(t -> name(t) + ".class")
                            .collect(Collectors.joining(", ")))
                    .append(")");
        }
        if (a.converters() != null && a.converters().length > 0) {
            b.append(".converters(")
                    .append(Arrays.stream(a.converters())
                            .map(c -> instance(c.getClass()))
                            .collect(Collectors.joining(", ")))
                    .append(")");
        }
        if (a.completionCandidates() != null && !a.type().isEnum()) {
            throw refuse(arg + ": completion candidates");
        }
    }

    /** What options and positional parameters have in common (picocli's builder of both is not public). */
    private record Attributes(
            CommandLine.Range arity,
            boolean required,
            boolean hidden,
            boolean hideParamSyntax,
            boolean interactive,
            String paramLabel,
            String[] description,
            String descriptionKey,
            String prompt,
            String defaultValue,
            String splitRegex,
            String mapFallbackValue,
            Object parameterConsumer,
            CommandLine.ScopeType scopeType,
            CommandLine.Help.Visibility showDefaultValue,
            Class<?> type,
            Class<?>[] auxiliaryTypes,
            CommandLine.ITypeConverter<?>[] converters,
            Iterable<String> completionCandidates) {}

    private static Attributes attributes(OptionSpec.Builder a) {
        return new Attributes(
                a.arity(),
                a.required(),
                a.hidden(),
                a.hideParamSyntax(),
                a.interactive(),
                a.paramLabel(),
                a.description(),
                a.descriptionKey(),
                a.prompt(),
                a.defaultValue(),
                a.splitRegex(),
                a.mapFallbackValue(),
                a.parameterConsumer(),
                a.scopeType(),
                a.showDefaultValue(),
                a.type(),
                a.auxiliaryTypes(),
                a.converters(),
                a.completionCandidates());
    }

    private static Attributes attributes(PositionalParamSpec.Builder a) {
        return new Attributes(
                a.arity(),
                a.required(),
                a.hidden(),
                a.hideParamSyntax(),
                a.interactive(),
                a.paramLabel(),
                a.description(),
                a.descriptionKey(),
                a.prompt(),
                a.defaultValue(),
                a.splitRegex(),
                a.mapFallbackValue(),
                a.parameterConsumer(),
                a.scopeType(),
                a.showDefaultValue(),
                a.type(),
                a.auxiliaryTypes(),
                a.converters(),
                a.completionCandidates());
    }

    private static void flag(StringBuilder b, String name, boolean value) {
        if (value) {
            b.append('.').append(name).append("(true)");
        }
    }

    private static void commandAttributes(StringBuilder m, CommandSpec spec) {
        m.append("        spec.name(").append(literal(spec.name())).append(");\n");
        if (spec.aliases().length > 0) {
            m.append("        spec.aliases(").append(literals(spec.aliases())).append(");\n");
        }
        if (spec.scopeType() == CommandLine.ScopeType.INHERIT) {
            m.append("        spec.scopeType(CommandLine.ScopeType.INHERIT);\n");
        }
        if (spec.helpCommand()) {
            m.append("        spec.helpCommand(true);\n");
        }
        if (spec.versionProvider() != null) {
            m.append("        spec.versionProvider(")
                    .append(instance(spec.versionProvider().getClass()))
                    .append(");\n");
        }
        if (spec.versionProvider() == null && spec.version().length > 0
                || spec.defaultValueProvider() != null
                || spec.subcommandsRepeatable()
                || spec.exitCodeOnSuccess() != CommandLine.ExitCode.OK
                || spec.exitCodeOnInvalidInput() != CommandLine.ExitCode.USAGE
                || spec.exitCodeOnExecutionException() != CommandLine.ExitCode.SOFTWARE) {
            throw refuse(spec.name() + ": version, default provider, repeatable subcommands or exit codes");
        }
    }

    /** Every usage message attribute the annotation set, through the setter of the same name. */
    private static void usageMessage(StringBuilder m, UsageMessageSpec usage) {
        UsageMessageSpec fresh = new UsageMessageSpec();
        for (Field field : UsageMessageSpec.class.getDeclaredFields()) {
            // The attributes an annotation sets are of these types; the rest (section renderers, say) it leaves.
            if (Modifier.isStatic(field.getModifiers())
                    || !List.of(String.class, String[].class, Boolean.class, Character.class, Integer.class)
                            .contains(field.getType())) {
                continue;
            }
            field.setAccessible(true);
            Object value;
            Object plain;
            try {
                value = field.get(usage);
                plain = field.get(fresh);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            if (Objects.deepEquals(value, plain)
                    || Set.of("interpolator", "messages", "helpFactory", "cachedTerminalWidth")
                            .contains(field.getName())) {
                continue;
            }
            if (!(value instanceof String || value instanceof String[] || value instanceof Boolean)) {
                throw refuse("usage message attribute " + field.getName() + " = " + value);
            }
            m.append("        spec.usageMessage().")
                    .append(field.getName())
                    .append('(')
                    .append(value instanceof String[] array ? literals(array) : literal(value))
                    .append(");\n");
        }
    }

    private static List<Field> fields(Class<?> type) {
        List<Field> fields = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            fields.addAll(0, Arrays.asList(c.getDeclaredFields()));
        }
        return fields;
    }

    private static String instance(Class<?> type) {
        try {
            Constructor<?> constructor = type.getDeclaredConstructor();
            if (Modifier.isPrivate(constructor.getModifiers()) || Modifier.isPrivate(type.getModifiers())) {
                throw refuse(type + ": needs a constructor without arguments that is not private");
            }
        } catch (NoSuchMethodException e) {
            throw refuse(type + ": needs a constructor without arguments");
        }
        return "new " + name(type) + "()";
    }

    private static String name(Class<?> type) {
        return type.getCanonicalName();
    }

    private static String boxed(Class<?> type) {
        if (!type.isPrimitive()) {
            return name(type);
        }
        return switch (type.getName()) {
            case "int" -> "Integer";
            case "char" -> "Character";
            default -> name(type).substring(0, 1).toUpperCase() + name(type).substring(1);
        };
    }

    private static String literals(String[] values) {
        return Arrays.stream(values).map(CommandModelWriter::literal).collect(Collectors.joining(", "));
    }

    private static String literal(Object value) {
        if (!(value instanceof String s)) {
            return String.valueOf(value);
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    private static Refused refuse(String what) {
        return new Refused(what);
    }

    /** Something of a command that this writer cannot build as picocli reads it from the annotations. */
    private static final class Refused extends RuntimeException {
        Refused(String what) {
            super(what);
        }
    }
}
