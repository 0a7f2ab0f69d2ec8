package io.standby.bench.chaos;

import com.mongodb.client.MongoDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.bson.Document;

/**
 * What the nodes said about their slots: the {@code events} collection (each event stamped by the server's clock when
 * the node wrote it, shortly after it happened; one host, so one clock) and the pause and resume lines of the node logs
 * (stamped by the node's clock as it logged them).
 */
final class History {

    /** One event of the {@code events} collection; {@code how} and {@code from} only for a {@code took-over}. */
    record Event(String type, String how, String slot, long epoch, String node, String from, long time) {}

    /** What a node log line says. */
    enum Said {
        /** "A watch link of N ended and no renewal outran its deadline: pausing the robots of S". */
        LINK_PAUSE,
        /** "No renewal of S acknowledged for ...: pausing its robots". */
        LATE_PAUSE,
        /** "Renewed S at epoch E after a pause: its robots start again". */
        RESUMED
    }

    /**
     * A pause or resume line of a node log.
     *
     * @param node the node whose log it is ({@code node-3})
     * @param epoch for a resume, the epoch; -1 otherwise
     */
    record Line(Said said, String node, String slot, long epoch, long time) {}

    private static final Pattern LINK_PAUSE = Pattern.compile(
            "A watch link of \\S+ ended and no renewal outran its deadline: pausing the robots of (\\S+);");
    private static final Pattern LATE_PAUSE =
            Pattern.compile("No renewal of (\\S+) acknowledged for .*: pausing its robots");
    private static final Pattern RESUMED = Pattern.compile("Renewed (\\S+) at epoch (\\d+) after a pause");
    private static final Pattern NODE_LOG = Pattern.compile("(node-\\d+)\\.log");

    private final List<Event> events;
    private final List<Line> lines;

    History(List<Event> events, List<Line> lines) {
        this.events = List.copyOf(events);
        this.lines = List.copyOf(lines);
    }

    List<Event> events() {
        return events;
    }

    List<Line> lines() {
        return lines;
    }

    /** The events of {@code db} and the lines of the node logs in {@code dir}, whose run began at {@code origin}. */
    static History read(MongoDatabase db, Path dir, long origin) {
        List<Event> events = new ArrayList<>();
        for (Document d : db.getCollection("events").find()) {
            Object time = d.get("time");
            events.add(new Event(
                    d.getString("type"),
                    d.getString("how"),
                    d.getString("slot"),
                    d.get("epoch") instanceof Number n ? n.longValue() : -1,
                    d.getString("node"),
                    d.getString("from"),
                    time instanceof Date date ? date.getTime() : -1));
        }
        return new History(events, logs(dir, origin));
    }

    static List<Line> logs(Path dir, long origin) {
        List<Line> lines = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.toList()) {
                Matcher name = NODE_LOG.matcher(file.getFileName().toString());
                if (!name.matches()) {
                    continue;
                }
                for (String line : Files.readAllLines(file)) {
                    Line parsed = parse(name.group(1), line, origin);
                    if (parsed != null) {
                        lines.add(parsed);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return lines;
    }

    /**
     * A pause or resume line, or null; its time ({@code HH:mm:ss.SSS}, local) taken on the day that puts it nearest
     * {@code origin}'s.
     */
    static Line parse(String node, String line, long origin) {
        Matcher m;
        Said said;
        long epoch = -1;
        if ((m = LINK_PAUSE.matcher(line)).find()) {
            said = Said.LINK_PAUSE;
        } else if ((m = LATE_PAUSE.matcher(line)).find()) {
            said = Said.LATE_PAUSE;
        } else if ((m = RESUMED.matcher(line)).find()) {
            said = Said.RESUMED;
            epoch = Long.parseLong(m.group(2));
        } else {
            return null;
        }
        long time = time(line, origin);
        return time < 0 ? null : new Line(said, node, m.group(1), epoch, time);
    }

    private static long time(String line, long origin) {
        if (line.length() < 12) {
            return -1;
        }
        try {
            LocalTime at = LocalTime.parse(line.substring(0, 12));
            ZoneId zone = ZoneId.systemDefault();
            LocalDate day = Instant.ofEpochMilli(origin).atZone(zone).toLocalDate();
            long time = at.atDate(day).atZone(zone).toInstant().toEpochMilli();
            // A run that went past midnight: a time half a day before its start is on the next day.
            return time < origin - 12 * 3600_000L ? time + 24 * 3600_000L : time;
        } catch (DateTimeParseException e) {
            return -1;
        }
    }

    /** For each lease ({@code slot:epoch}), when it resumed after a pause: its events' and its log lines' times. */
    Map<String, List<Long>> resumes() {
        Map<String, List<Long>> resumes = new HashMap<>();
        for (Event e : events) {
            if ("resumed".equals(e.type())) {
                resumes.computeIfAbsent(e.slot() + ":" + e.epoch(), k -> new ArrayList<>())
                        .add(e.time());
            }
        }
        for (Line l : lines) {
            if (l.said() == Said.RESUMED) {
                resumes.computeIfAbsent(l.slot() + ":" + l.epoch(), k -> new ArrayList<>())
                        .add(l.time());
            }
        }
        return resumes;
    }

    /** For each lease ({@code slot:epoch}) a standby took over by a dead watch link, the time of that event. */
    Map<String, Long> takenByLink() {
        Map<String, Long> taken = new HashMap<>();
        for (Event e : events) {
            if ("took-over".equals(e.type()) && "link".equals(e.how())) {
                taken.put(e.slot() + ":" + (e.epoch() - 1), e.time());
            }
        }
        return taken;
    }
}
