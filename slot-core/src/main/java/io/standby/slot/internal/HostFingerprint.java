package io.standby.slot.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Tells apart the places where binding an address proves that no other process holds it: one network namespace of one
 * running kernel. On Linux that is the host name (for people), the boot id (random per boot, so different on every
 * machine) and the inode of the network namespace (different per container). Elsewhere only the host name is known, and
 * two machines must not share one.
 */
public final class HostFingerprint {

    private static final Pattern NAMESPACE = Pattern.compile("\\[(\\d+)]");

    private HostFingerprint() {}

    /** This process's fingerprint, e.g. {@code worker-3:5c3e1a7f:4026531840}. */
    public static String current() {
        StringBuilder fingerprint = new StringBuilder(hostName());
        String boot = read(Path.of("/proc/sys/kernel/random/boot_id"));
        if (boot != null) {
            fingerprint
                    .append(':')
                    .append(
                            boot.replace("-", ""),
                            0,
                            Math.min(8, boot.replace("-", "").length()));
        }
        try {
            Matcher inode = NAMESPACE.matcher(
                    Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString());
            if (inode.find()) {
                fingerprint.append(':').append(inode.group(1));
            }
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            // Not Linux: the host name alone.
        }
        return fingerprint.toString();
    }

    private static String hostName() {
        String name = read(Path.of("/proc/sys/kernel/hostname"));
        if (name == null) {
            name = System.getenv("HOSTNAME") != null ? System.getenv("HOSTNAME") : System.getenv("COMPUTERNAME");
        }
        if (name == null) {
            try {
                name = InetAddress.getLocalHost().getHostName();
            } catch (IOException e) {
                name = "unknown-host";
            }
        }
        return name.strip().replace("@", "_");
    }

    private static String read(Path file) {
        try {
            String text = Files.readString(file).strip();
            return text.isEmpty() ? null : text;
        } catch (IOException | SecurityException e) {
            return null;
        }
    }
}
