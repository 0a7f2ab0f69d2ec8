package io.standby.cli;

import java.util.List;
import java.util.regex.Pattern;
import org.bson.BsonType;
import org.bson.Document;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.DocumentCodec;
import org.bson.json.JsonParseException;
import org.bson.json.JsonReader;

/**
 * A robot's configuration document from {@code --config-json JSON} and {@code --config KEY=VALUE} options. Checked
 * completely before anything touches the database.
 */
final class RobotConfigArguments {

    private static final Pattern INTEGER = Pattern.compile("-?(0|[1-9][0-9]*)");
    private static final Pattern DECIMAL =
            Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+([eE][+-]?[0-9]+)?|[eE][+-]?[0-9]+)");

    private RobotConfigArguments() {}

    /**
     * The JSON object (or an empty document), then each KEY=VALUE in order: a key given both ways, or twice, takes the
     * last KEY=VALUE.
     *
     * @throws IllegalArgumentException naming the bad option value
     */
    static Document parse(String json, List<String> pairs) {
        Document config = json == null ? new Document() : parseJson(json);
        for (String pair : pairs) {
            int equals = pair.indexOf('=');
            if (equals < 0) {
                throw Flags.invalid("invalid --config '" + pair + "': expected KEY=VALUE");
            }
            String key = pair.substring(0, equals);
            if (key.isBlank()) {
                throw Flags.invalid("invalid --config '" + pair + "': the key is empty");
            }
            if (key.startsWith("$") || key.contains(".")) {
                throw Flags.invalid("invalid --config '" + pair
                        + "': a key may not start with '$' or contain '.' (use --config-json for nested values)");
            }
            config.put(key, typed(pair.substring(equals + 1)));
        }
        return config;
    }

    /** true/false, a whole number (int, or long when it does not fit), a decimal number, or else the text itself. */
    static Object typed(String value) {
        if (value.equals("true") || value.equals("false")) {
            return Boolean.parseBoolean(value);
        }
        if (INTEGER.matcher(value).matches()) {
            try {
                long number = Long.parseLong(value);
                return number == (int) number ? (Object) (int) number : (Object) number;
            } catch (NumberFormatException tooLong) {
                return value;
            }
        }
        if (DECIMAL.matcher(value).matches()) {
            double number = Double.parseDouble(value);
            return Double.isFinite(number) ? (Object) number : value;
        }
        return value;
    }

    /**
     * What {@link Document#parse} does, and one check more: nothing but white space may follow the object, so a typo
     * after it is reported instead of silently dropped.
     */
    private static Document parseJson(String json) {
        if (!json.strip().startsWith("{")) {
            throw badJson(json, "expected a JSON object, {...}");
        }
        Document document;
        boolean trailing;
        try (JsonReader reader = new JsonReader(json)) {
            document =
                    new DocumentCodec().decode(reader, DecoderContext.builder().build());
            trailing = reader.readBsonType() != BsonType.END_OF_DOCUMENT;
        } catch (JsonParseException e) {
            throw badJson(
                    json,
                    String.valueOf(e.getMessage())
                            .replaceFirst("^JSON reader was ", "")
                            .replaceFirst("\\.$", ""));
        } catch (RuntimeException e) {
            // e.g. ObjectId('x'): the extended-JSON constructors reject their argument
            throw badJson(json, String.valueOf(e.getMessage()));
        }
        if (trailing) {
            throw badJson(json, "unexpected text after the object");
        }
        return document;
    }

    private static IllegalArgumentException badJson(String json, String reason) {
        String shown = Json.truncate(json.strip().replaceAll("\\s+", " "), 60);
        return Flags.invalid("invalid --config-json '" + shown + "': " + reason);
    }
}
