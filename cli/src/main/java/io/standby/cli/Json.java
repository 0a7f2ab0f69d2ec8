package io.standby.cli;

import java.time.Instant;
import java.util.Date;
import java.util.Iterator;
import java.util.Map;

/**
 * JSON for people and scripts: compact one-line renderings of documents in tables, and the indented output of {@code -o
 * json}. Instants and dates are ISO-8601 strings; numbers JSON cannot hold (NaN, infinities) are strings too, so that
 * every output parses.
 */
final class Json {

    private Json() {}

    /**
     * A document or value as one line of JSON without spaces, e.g. {@code {"count":12,"epoch":3}}. Types JSON lacks
     * (dates, ids) are written as strings; this is for reading, not for parsing back.
     */
    static String compact(Object value) {
        StringBuilder out = new StringBuilder();
        write(out, value);
        return out.toString();
    }

    /** A document or value as indented JSON, two spaces a level, as kubectl prints {@code -o json}. */
    static String pretty(Object value) {
        StringBuilder out = new StringBuilder();
        write(out, value, 0);
        return out.toString();
    }

    /** {@code text} as a JSON string literal. */
    static String quote(String text) {
        return quote(text, false);
    }

    /**
     * {@code text} as a double-quoted string with JSON's escapes; with {@code c1} also the C1 controls and the byte
     * order mark, which YAML does not allow raw ({@link Yaml}).
     */
    static String quote(String text, boolean c1) {
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || (c1 && ((c >= 0x7f && c <= 0x9f) || c == '\ufeff'))) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    /** {@code text} cut to at most {@code max} characters, ending in "..." when cut; null stays null. */
    static String truncate(String text, int max) {
        if (text == null || text.length() <= max) {
            return text;
        }
        return text.substring(0, Math.max(0, max - 3)) + "...";
    }

    private static void write(StringBuilder out, Object value) {
        write(out, value, -1);
    }

    /** With {@code indent} at -1 on one line, else indented from that level. */
    private static void write(StringBuilder out, Object value, int indent) {
        switch (value) {
            case null -> out.append("null");
            case String s -> out.append(quote(s));
            case Boolean b -> out.append(b);
            case Double d when d.isNaN() || d.isInfinite() -> out.append(quote(d.toString()));
            case Float f when f.isNaN() || f.isInfinite() -> out.append(quote(f.toString()));
            case Number n -> out.append(n);
            case Date d -> out.append(quote(d.toInstant().toString()));
            case Instant i -> out.append(quote(i.toString()));
            case Map<?, ?> map -> {
                out.append('{');
                Iterator<? extends Map.Entry<?, ?>> entries = map.entrySet().iterator();
                while (entries.hasNext()) {
                    Map.Entry<?, ?> entry = entries.next();
                    newline(out, inner(indent));
                    out.append(quote(String.valueOf(entry.getKey()))).append(indent < 0 ? ":" : ": ");
                    write(out, entry.getValue(), inner(indent));
                    if (entries.hasNext()) {
                        out.append(',');
                    }
                }
                if (!map.isEmpty()) {
                    newline(out, indent);
                }
                out.append('}');
            }
            case Iterable<?> list -> {
                out.append('[');
                Iterator<?> items = list.iterator();
                boolean any = items.hasNext();
                while (items.hasNext()) {
                    newline(out, inner(indent));
                    write(out, items.next(), inner(indent));
                    if (items.hasNext()) {
                        out.append(',');
                    }
                }
                if (any) {
                    newline(out, indent);
                }
                out.append(']');
            }
            default -> out.append(quote(value.toString()));
        }
    }

    private static int inner(int indent) {
        return indent < 0 ? -1 : indent + 1;
    }

    private static void newline(StringBuilder out, int indent) {
        if (indent >= 0) {
            out.append('\n').append("  ".repeat(indent));
        }
    }
}
