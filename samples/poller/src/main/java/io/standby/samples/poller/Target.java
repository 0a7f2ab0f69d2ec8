package io.standby.samples.poller;

import java.time.Instant;
import java.util.Date;
import org.bson.Document;

/**
 * What the poller knows about one URL, kept in its context so that the next owner goes on from it: the validators for
 * conditional requests ({@code etag}, {@code lastModified}), the last answer, and when to fetch next. Stored as a
 * document in the list {@code targets} (URLs have dots, which field names should not).
 *
 * @param status the last HTTP status; 0 before the first answer, or after an error without one
 * @param sha256 the SHA-256 of the last 200's body (any other answer keeps it)
 * @param failures consecutive errors (no answer, 5xx or 429); 0 after an answer
 * @param error the last error, null after an answer
 * @param changes how often a 200 brought a body different from the last one
 * @param checked when the last request was sent (this node's clock)
 * @param nextAt when to fetch next (this node's clock; another node's is close enough for a schedule)
 */
record Target(
        String url,
        int status,
        String etag,
        String lastModified,
        String sha256,
        int failures,
        String error,
        long changes,
        Instant checked,
        Instant nextAt) {

    static Target fresh(String url, Instant now) {
        return new Target(url, 0, null, null, null, 0, null, 0, null, now);
    }

    static Target of(Document doc) {
        return new Target(
                doc.getString("url"),
                doc.get("status", 0),
                doc.getString("etag"),
                doc.getString("lastModified"),
                doc.getString("sha256"),
                doc.get("failures", 0),
                doc.getString("error"),
                doc.get("changes") instanceof Number n ? n.longValue() : 0,
                doc.getDate("checked") == null ? null : doc.getDate("checked").toInstant(),
                doc.getDate("nextAt") == null
                        ? Instant.EPOCH
                        : doc.getDate("nextAt").toInstant());
    }

    Document toDocument() {
        return new Document("url", url)
                .append("status", status)
                .append("etag", etag)
                .append("lastModified", lastModified)
                .append("sha256", sha256)
                .append("failures", failures)
                .append("error", error)
                .append("changes", changes)
                .append("checked", checked == null ? null : Date.from(checked))
                .append("nextAt", Date.from(nextAt));
    }
}
