package io.standby.cli;

import java.util.Date;
import java.util.Iterator;
import java.util.Map;

/** JSON for people: compact one-line renderings of documents in tables, and strings for /health. */
final class Json {

    private Json() {
    }

    /**
     * A document or value as one line of JSON without spaces, e.g. {@code {"count":12,"epoch":3}}.
     * Types JSON lacks (dates, ids) are written as strings; this is for reading, not for parsing back.
     */
    static String compact(Object value) {
        StringBuilder out = new StringBuilder();
        write(out, value);
        return out.toString();
    }

    /** {@code text} as a JSON string literal. */
    static String quote(String text) {
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
                    if (c < 0x20) {
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
        switch (value) {
            case null -> out.append("null");
            case String s -> out.append(quote(s));
            case Boolean b -> out.append(b);
            case Number n -> out.append(n);
            case Date d -> out.append(quote(d.toInstant().toString()));
            case Map<?, ?> map -> {
                out.append('{');
                Iterator<? extends Map.Entry<?, ?>> entries = map.entrySet().iterator();
                while (entries.hasNext()) {
                    Map.Entry<?, ?> entry = entries.next();
                    out.append(quote(String.valueOf(entry.getKey()))).append(':');
                    write(out, entry.getValue());
                    if (entries.hasNext()) {
                        out.append(',');
                    }
                }
                out.append('}');
            }
            case Iterable<?> list -> {
                out.append('[');
                Iterator<?> items = list.iterator();
                while (items.hasNext()) {
                    write(out, items.next());
                    if (items.hasNext()) {
                        out.append(',');
                    }
                }
                out.append(']');
            }
            default -> out.append(quote(value.toString()));
        }
    }
}
