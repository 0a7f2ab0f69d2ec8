package io.standby.node.web;

import io.standby.node.NodeEndpoint;
import io.standby.node.NodeExtension;
import io.standby.node.NodeHooks;
import io.standby.node.StartedNode;
import io.standby.robot.admin.ClusterStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The node's pages beyond {@code /health}, on its own ip:port: {@code /ready}, {@code /status} and the dashboard at
 * {@code /} (plain HTML, CSS and JavaScript from this jar, nothing fetched elsewhere).
 *
 * <pre>{@code
 * StandbyNode.builder().mongo(uri).node(ip, port).extension(NodeWeb.pages()).start();
 * }</pre>
 *
 * <p>A node built {@code withoutEndpoint()} has no listener, and these pages are not served.
 */
public final class NodeWeb {

    /** The dashboard's files: a path of the endpoint, then the class-path resource and its type. */
    private static final Map<String, String[]> DASHBOARD = Map.of(
            "/", new String[] {"dashboard/index.html", "text/html; charset=utf-8"},
            "/dashboard.css", new String[] {"dashboard/dashboard.css", "text/css; charset=utf-8"},
            "/dashboard.js", new String[] {"dashboard/dashboard.js", "text/javascript; charset=utf-8"});

    private NodeWeb() {}

    /** {@code /ready}, {@code /status} and the dashboard, served once the node has joined. */
    public static NodeExtension pages() {
        return config -> new NodeHooks() {
            @Override
            public void started(StartedNode node) {
                node.endpoint().ifPresent(http -> serve(node, http));
            }
        };
    }

    private static void serve(StartedNode node, NodeEndpoint http) {
        // On the robots' connection: a viewer's read never delays the protocol's renewals.
        ClusterView cluster =
                new ClusterView(() -> ClusterStatus.read(node.robotDatabase(), ClusterView.EVENTS, ClusterView.ROBOTS));
        new NodeStatus(node, cluster).serve(http);
        DASHBOARD.forEach((path, file) -> http.route(path, () -> file(file[0], file[1])));
    }

    private static NodeEndpoint.Response file(String resource, String contentType) {
        try (InputStream in = NodeWeb.class.getResourceAsStream(resource)) {
            return in == null
                    ? NodeEndpoint.notFound()
                    : new NodeEndpoint.Response(200, contentType, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
