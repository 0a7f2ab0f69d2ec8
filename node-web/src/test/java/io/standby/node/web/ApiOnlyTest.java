package io.standby.node.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * This module hears the node only through its extension SPI and the listeners, as resilience4j's metrics module hears
 * an event publisher: none of its sources imports an internal package of the core. (Without module-info.java in the
 * core, this is the check.) Run from node-web.
 */
class ApiOnlyTest {

    private static final Pattern INTERNAL =
            Pattern.compile("(?m)^import (static )?io\\.standby\\.[a-z.]*\\binternal\\b.*$");

    @Test
    void noSourceOfThisModuleImportsAnInternalPackage() throws IOException {
        Path sources = Path.of("src/main/java");
        List<Path> files;
        try (Stream<Path> walk = Files.walk(sources)) {
            files = walk.filter(p -> p.toString().endsWith(".java")).toList();
        }
        assertTrue(files.size() >= 5, "found this module's sources: " + files);
        List<String> internal = files.stream()
                .flatMap(file -> {
                    try {
                        return INTERNAL.matcher(Files.readString(file))
                                .results()
                                .map(m -> file.getFileName() + ": " + m.group());
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                })
                .toList();
        assertEquals(List.of(), internal);
    }
}
