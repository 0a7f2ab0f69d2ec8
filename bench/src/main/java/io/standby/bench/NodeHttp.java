package io.standby.bench;

import io.standby.testing.ChildJvm;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A node's own HTTP endpoints (on its identity port): /ready tells that it reads its slots, /health lists the robots it
 * runs, by slot.
 */
final class NodeHttp {

    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private NodeHttp() {}

    /** The status code of {@code GET path}, or -1 when nothing answers. */
    static int status(int port, String path) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(2))
                    .build();
            return CLIENT.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** The body of {@code GET path} if it answered 200, or null when nothing (or something else) answers. */
    static String body(int port, String path) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(2))
                    .build();
            HttpResponse<String> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Waits until the node answers 200 on /ready: it is up and has read its slots. */
    static void awaitReady(ChildJvm node, int port, Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (status(port, "/ready") != 200) {
            if (!node.isAlive()) {
                throw new IllegalStateException(node.name() + " exited (log: " + node.log() + ")");
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        node.name() + " not ready after " + atMost.toMillis() + " ms (log: " + node.log() + ")");
            }
            Bench.sleep(Duration.ofMillis(20));
        }
    }
}
