package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The hand-written {@code -o yaml} reads back, through SnakeYAML, as exactly what was written, however odd. */
class YamlTest {

    private static Object read(String yaml) {
        return new org.yaml.snakeyaml.Yaml().load(yaml);
    }

    @Test
    void stringsThatLookLikeSomethingElseStayStrings() {
        List<String> odd = List.of(
                "yes",
                "No",
                "on",
                "null",
                "~",
                "true",
                "",
                " lead",
                "trail ",
                "10.0.0.1:7700",
                "1e3",
                "0x10",
                "007",
                "- x",
                "a: b",
                "#c",
                "a #b",
                "{x}",
                "[x]",
                "*ref",
                "&a",
                "!tag",
                "%d",
                "@x",
                "`x`",
                "'q'",
                "a \"quoted\"\nline",
                "tab\there",
                "java.lang.IllegalStateException: boom\n\tat x",
                "\u0085nel",
                "ünïcødé",
                "2026-11-26T08:47:59.210Z",
                "slot-0",
                ".5",
                "-",
                "?",
                "|",
                ">");
        Map<String, Object> doc = new LinkedHashMap<>();
        for (int i = 0; i < odd.size(); i++) {
            doc.put(odd.get(i), odd.get(i));
        }
        assertEquals(doc, read(Yaml.write(doc)), Yaml.write(doc));
        assertEquals(odd, read(Yaml.write(odd)));
    }

    @Test
    void nestedShapesNumbersAndTimes() {
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("count", 41);
        inner.put("big", 9_000_000_000L);
        inner.put("weight", 2.5);
        inner.put("nan", Double.NaN);
        inner.put("none", null);
        inner.put("empty", Map.of());
        inner.put("nothing", List.of());
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("id", "c1");
        doc.put("ok", true);
        doc.put("context", inner);
        doc.put("slots", List.of("slot-0", "slot-1"));
        doc.put("events", List.of(Map.of("type", "claimed"), Map.of("list", List.of(1, List.of(2, 3)))));
        doc.put("time", Instant.parse("2026-11-26T08:47:59.210Z"));

        Map<String, Object> expected = new LinkedHashMap<>(doc);
        Map<String, Object> expectedInner = new LinkedHashMap<>(inner);
        expectedInner.put("nan", "NaN");
        expected.put("context", expectedInner);
        expected.put("time", "2026-11-26T08:47:59.210Z");
        String yaml = Yaml.write(doc);
        assertEquals(expected, read(yaml), yaml);
        assertEquals(List.of(), read(Yaml.write(List.of())));
        assertEquals(Map.of(), read(Yaml.write(Map.of())));
    }
}
