package io.standby.cli;

import java.time.Instant;
import java.util.Collection;
import java.util.Date;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * YAML for {@code -o yaml}, written by hand for the CLI's own shapes (maps, lists, strings, numbers, booleans, times):
 * a library would add a megabyte to every command for what fits here. Block style as kubectl prints it; a string is
 * left plain only when no YAML reader could take it for anything else, else double-quoted.
 */
final class Yaml {

    /** Starts with a letter, so never a number; no character YAML gives a meaning to. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_./-]*");

    /** Words YAML 1.1 readers (SnakeYAML, PyYAML) take for booleans or null. */
    private static final Set<String> RESERVED = Set.of("y", "yes", "n", "no", "true", "false", "on", "off", "null");

    private Yaml() {}

    /** {@code value} as a YAML document, ending in a newline. */
    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        if (isBlock(value)) {
            block(out, value, 0);
        } else {
            out.append(scalar(value)).append('\n');
        }
        return out.toString();
    }

    private static boolean isBlock(Object value) {
        return (value instanceof Map<?, ?> map && !map.isEmpty())
                || (value instanceof Collection<?> list && !list.isEmpty());
    }

    /** A non-empty map or list, each line indented by {@code indent}. */
    private static void block(StringBuilder out, Object value, int indent) {
        String pad = " ".repeat(indent);
        if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                out.append(pad).append(string(String.valueOf(entry.getKey()))).append(':');
                Object v = entry.getValue();
                if (v instanceof Map<?, ?> && isBlock(v)) {
                    out.append('\n');
                    block(out, v, indent + 2);
                } else if (isBlock(v)) {
                    // A list under a key at the key's own indent, as kubectl writes it.
                    out.append('\n');
                    block(out, v, indent);
                } else {
                    out.append(' ').append(scalar(v)).append('\n');
                }
            }
            return;
        }
        Iterator<?> items = ((Collection<?>) value).iterator();
        while (items.hasNext()) {
            Object item = items.next();
            out.append(pad).append("- ");
            if (isBlock(item)) {
                // The item's first line goes after the dash, the rest under it.
                StringBuilder inner = new StringBuilder();
                block(inner, item, indent + 2);
                out.append(inner, indent + 2, inner.length());
            } else {
                out.append(scalar(item)).append('\n');
            }
        }
    }

    private static String scalar(Object value) {
        return switch (value) {
            case null -> "null";
            case Boolean b -> b.toString();
            case Double d when d.isNaN() || d.isInfinite() -> quote(d.toString());
            case Float f when f.isNaN() || f.isInfinite() -> quote(f.toString());
            case Number n -> n.toString();
            case Date d -> quote(d.toInstant().toString());
            case Instant i -> quote(i.toString());
            case Map<?, ?> map -> "{}";
            case Collection<?> list -> "[]";
            case String s -> string(s);
            default -> quote(value.toString());
        };
    }

    private static String string(String s) {
        return PLAIN.matcher(s).matches() && !RESERVED.contains(s.toLowerCase(java.util.Locale.ROOT)) ? s : quote(s);
    }

    /** A double-quoted YAML string: JSON's escapes, and YAML's for the C1 controls it does not allow raw. */
    private static String quote(String text) {
        return Json.quote(text, true);
    }
}
