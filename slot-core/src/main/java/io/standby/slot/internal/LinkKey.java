package io.standby.slot.internal;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Date;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.bson.Document;
import org.bson.types.Binary;

/**
 * The cluster's key for watch links: 32 random bytes in the database ({@code secrets}, id {@code watch-links}), created
 * by the first node that finds none and read by every node at its start. Whoever can read it can speak for any node on
 * a link, so it is exactly as secret as the database: a peer that can reach a node's port but not the database cannot
 * take part (docs/SECURITY.md).
 *
 * <p>A link's handshake proves to each side that the other holds the key, bound to both sides' fresh nonces, the
 * owner's instance and the standby's identity; every message after it carries a tag under a key of that link alone
 * ({@link Tags}), so no message of one link is accepted on another, and the sequence numbers in the tags refuse a
 * replay within one.
 */
public final class LinkKey {

    /** The collection the key is kept in. */
    public static final String COLLECTION = "secrets";
    /** The key's document id. */
    public static final String ID = "watch-links";
    /** The length of a nonce, of a handshake's proof (HMAC-SHA256) and of a message's tag. */
    static final int NONCE = 16;

    static final int PROOF = 32;
    static final int TAG = 16;
    private static final String HMAC = "HmacSHA256";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] key;

    private LinkKey(byte[] key) {
        this.key = key.clone();
        // The first HMAC of a JVM loads and checks the provider, hundreds of milliseconds on a cold start:
        // here, not in the first handshake, whose round trip decides whether the link is taken.
        tags(nonce(), nonce(), "", "").tag((byte) 0, 0, 0);
    }

    /** A key of these bytes: for tests, and for a key read elsewhere. */
    public static LinkKey of(byte[] key) {
        if (key.length < 16) {
            throw new IllegalArgumentException("a link key of " + key.length + " bytes is too short: at least 16");
        }
        return new LinkKey(key);
    }

    /** A new random key, as the first node of a cluster creates it. */
    public static LinkKey random() {
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        return new LinkKey(key);
    }

    /**
     * The cluster's key from {@code database}, created if there is none. Of nodes that start at once and find none,
     * exactly one insert wins (the id is unique) and every node reads the winner's.
     *
     * @throws RuntimeException if the database cannot be reached or this user may not read or create it
     */
    public static LinkKey loadOrCreate(MongoDatabase database) {
        MongoCollection<Document> secrets = database.getCollection(COLLECTION);
        Document found = secrets.find(Filters.eq("_id", ID))
                .projection(Projections.include("key"))
                .first();
        if (found == null) {
            LinkKey fresh = random();
            try {
                secrets.insertOne(new Document("_id", ID)
                        .append("key", new Binary(fresh.key))
                        .append("created", new Date()));
                return fresh;
            } catch (MongoWriteException e) {
                if (e.getError().getCategory() != ErrorCategory.DUPLICATE_KEY) {
                    throw e;
                }
            }
            found = secrets.find(Filters.eq("_id", ID))
                    .projection(Projections.include("key"))
                    .first();
            if (found == null) {
                throw new IllegalStateException(
                        "the link key " + ID + " in " + COLLECTION + " vanished while it was created");
            }
        }
        if (!(found.get("key") instanceof Binary binary)) {
            throw new IllegalStateException("the link key " + ID + " in " + COLLECTION + " is not binary data");
        }
        return of(binary.getData());
    }

    /** A fresh nonce. */
    static byte[] nonce() {
        byte[] nonce = new byte[NONCE];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    /** The owner's proof in a handshake: it holds the key and is {@code ownerInstance}, answering these nonces. */
    byte[] ownerProof(byte[] standbyNonce, byte[] ownerNonce, String ownerInstance, String standby) {
        return mac(key, "SBW2/owner", standbyNonce, ownerNonce, ownerInstance, standby);
    }

    /** The standby's proof in a handshake. */
    byte[] standbyProof(byte[] standbyNonce, byte[] ownerNonce, String ownerInstance, String standby) {
        return mac(key, "SBW2/standby", standbyNonce, ownerNonce, ownerInstance, standby);
    }

    /** The tags of one link's messages, under a key of that link alone. */
    Tags tags(byte[] standbyNonce, byte[] ownerNonce, String ownerInstance, String standby) {
        return new Tags(mac(key, "SBW2/link", standbyNonce, ownerNonce, ownerInstance, standby));
    }

    /** Compares in constant time. */
    static boolean same(byte[] a, byte[] b) {
        return MessageDigest.isEqual(a, b);
    }

    private static byte[] mac(
            byte[] key, String label, byte[] standbyNonce, byte[] ownerNonce, String ownerInstance, String standby) {
        Mac mac = newMac(key);
        mac.update(field(label.getBytes(StandardCharsets.UTF_8)));
        mac.update(field(standbyNonce));
        mac.update(field(ownerNonce));
        mac.update(field(ownerInstance.getBytes(StandardCharsets.UTF_8)));
        mac.update(field(standby.getBytes(StandardCharsets.UTF_8)));
        return mac.doFinal();
    }

    /** A field with its length in front, so that no two lists of fields give the same input. */
    private static byte[] field(byte[] bytes) {
        return ByteBuffer.allocate(4 + bytes.length)
                .putInt(bytes.length)
                .put(bytes)
                .array();
    }

    private static Mac newMac(byte[] key) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(key, HMAC));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available", e);
        }
    }

    /**
     * The tags of one link's messages: a ping's covers its sequence number and beat, an acknowledgement's its sequence
     * number, a goodbye's its kind. Not thread-safe: one per thread that uses it.
     */
    static final class Tags {
        private final byte[] linkKey;
        private final Mac mac;

        private Tags(byte[] linkKey) {
            this.linkKey = linkKey;
            this.mac = newMac(linkKey);
        }

        /** Another instance for another thread, with the same link key. */
        Tags copy() {
            return new Tags(linkKey);
        }

        byte[] tag(byte type, long seq, long beat) {
            mac.update(type);
            mac.update(ByteBuffer.allocate(16).putLong(seq).putLong(beat).array());
            return Arrays.copyOf(mac.doFinal(), TAG);
        }
    }
}
