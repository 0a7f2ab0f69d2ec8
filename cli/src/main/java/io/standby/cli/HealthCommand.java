package io.standby.cli;

import io.standby.slot.Durations;
import io.standby.slot.NodeId;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.bson.Document;
import org.bson.json.JsonParseException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code standby health}: asks a running node's {@code /ready} over HTTP, at the address {@code standby node} would
 * bind with the same options, {@code STANDBY_*} variables and {@code --config} file. For a container's health check.
 */
@Command(
        name = "health",
        footerHeading = "%nExamples:%n",
        footer = {
            "  standby health --ip 10.0.0.5 --port 7700",
            "  standby health --config /etc/standby/node.properties",
            "  STANDBY_IP=10.0.0.5 STANDBY_PORT=7700 standby health",
            "  standby health --url http://10.0.0.5:7700 --timeout 5s"
        },
        description = {
            "Asks a node whether it is ready: exits 0 if its /ready answers 200, 1 with the reason otherwise "
                    + "(nothing listening, no answer within --timeout, not ready and why).",
            "The node's address comes from the options 'standby node' takes, read the same way: --ip and --port, "
                    + "a --config FILE, or STANDBY_IP and STANDBY_PORT. Its other options are accepted and ignored, "
                    + "so a node's own command line can be given as it is."
        })
final class HealthCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(
            names = "--url",
            paramLabel = "URL",
            description = "Ask this node instead, e.g. http://10.0.0.5:7700 (its /ready), or a whole URL to ask.")
    String url;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            defaultValue = "2s",
            converter = Timeout.class,
            description = "How long the node has to answer (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Unmatched
    List<String> nodeOptions = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        URI target = url != null ? fromUrl(url) : fromNodeOptions();
        HttpResponse<String> answer;
        // The client's own threads outlive a call: closed, so that a health check leaves nothing behind.
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build()) {
            answer = client.send(
                    HttpRequest.newBuilder(target).timeout(timeout).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            throw unhealthy(target, "no answer within " + Durations.format(timeout));
        } catch (ConnectException e) {
            // The client's exception has no message of its own, only a ClosedChannelException as its cause.
            throw unhealthy(target, "cannot connect (nothing listens there, or no route to it)");
        } catch (IOException e) {
            throw unhealthy(target, MongoCommand.rootMessage(e));
        }
        String node = field(answer.body(), "node");
        if (answer.statusCode() == 200) {
            spec.commandLine().getOut().println("healthy: " + (node == null ? target : node) + " is ready");
            spec.commandLine().getOut().flush();
            return 0;
        }
        String reason = field(answer.body(), "reason");
        if (answer.statusCode() == 503 && reason != null) {
            throw unhealthy(target, "not ready: " + reason);
        }
        throw unhealthy(target, "HTTP " + answer.statusCode() + " (is it a standby node?)");
    }

    private static StandbyCli.UserError unhealthy(URI target, String why) {
        return new StandbyCli.UserError("unhealthy: " + target + ": " + why);
    }

    /** A duration as the other options take it, and more than zero: a check that cannot wait fails at once. */
    static final class Timeout implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            Duration duration = new DurationConverter().convert(value);
            if (duration.isZero()) {
                throw new CommandLine.TypeConversionException("'" + value + "' must be more than 0");
            }
            return duration;
        }
    }

    /** A base URL gets the node's {@code /ready}; a URL with a path is asked as it is. */
    private static URI fromUrl(String url) {
        URI uri;
        try {
            uri = new URI(url.strip());
        } catch (URISyntaxException e) {
            throw badUrl(url);
        }
        if (!("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme()))
                || uri.getHost() == null) {
            throw badUrl(url);
        }
        String path = uri.getRawPath();
        return path == null || path.isEmpty() || path.equals("/") ? uri.resolve("/ready") : uri;
    }

    private static Flags.UsageError badUrl(String url) {
        return Flags.invalid(
                "invalid --url '" + url + "': expected http://HOST:PORT of a node, e.g. http://10.0.0.5:7700");
    }

    /** The node's {@code /ready} at the ip:port that {@code standby node} with these options would bind. */
    private URI fromNodeOptions() throws URISyntaxException {
        NodeCommand node = parsedAsNode(nodeOptions);
        if (node.config != null) {
            // As NodeCommand does it: the file's settings become options, the command line's winning.
            String[] expanded = ConfigFile.expand(node.config, node.spec);
            node = parsedAsNode(List.of(expanded).subList(1, expanded.length));
        }
        if (node.ip == null || node.port == null) {
            throw Flags.invalid("no node to ask: give the node's --ip and --port (or STANDBY_IP and STANDBY_PORT, "
                    + "or --config FILE), or --url");
        }
        String ip = node.ip;
        int port = node.port;
        Flags.usage(() -> new NodeId(ip, port));
        return new URI("http", null, ip, port, "/ready", null, null);
    }

    /** {@code options} read by {@code standby node}'s own parser, variables and defaults included. */
    private NodeCommand parsedAsNode(List<String> options) {
        List<String> args = new ArrayList<>(List.of("node"));
        args.addAll(options);
        CommandLine cli = StandbyCli.commandLine("node");
        try {
            cli.parseArgs(args.toArray(String[]::new));
        } catch (CommandLine.ParameterException e) {
            // Reported as this command's own bad input, still naming the variable a bad value came from.
            throw e.getArgSpec() == null
                    ? new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e)
                    : new CommandLine.ParameterException(
                            spec.commandLine(), e.getMessage(), e, e.getArgSpec(), e.getValue());
        }
        return cli.getSubcommands().get("node").getCommand();
    }

    /** A string field of the node's JSON answer, if the answer is JSON and has it. */
    private static String field(String body, String name) {
        try {
            Object value = Document.parse(body).get(name);
            return value instanceof String text ? text : null;
        } catch (JsonParseException | IllegalArgumentException e) {
            return null;
        }
    }
}
