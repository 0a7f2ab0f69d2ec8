package io.standby.slot;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The identity of a node: the IP address and port its HTTP endpoint binds.
 *
 * <p>Binding that address proves that no other live process on the machine holds the same identity, which is what lets
 * a restarted node take its own slots back at once. The address is therefore a literal IP of this machine: host names
 * and wildcard addresses are rejected.
 */
public record NodeId(String ip, int port) {

    private static final Pattern IPV4 =
            Pattern.compile("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]+");

    /**
     * @throws IllegalArgumentException naming the bad value if ip is not a literal address or port is outside 1–65535
     */
    public NodeId {
        Objects.requireNonNull(ip, "ip");
        if (!isLiteralIp(ip)) {
            throw new IllegalArgumentException("invalid ip '" + ip + "': expected a literal IPv4 or IPv6 address");
        }
        if (ip.equals("0.0.0.0") || ip.equals("::") || ip.equals("0:0:0:0:0:0:0:0")) {
            throw new IllegalArgumentException("invalid ip '" + ip + "': a wildcard address is not a node identity");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("invalid port " + port + ": expected 1-65535");
        }
    }

    /** Parses {@code ip:port} (IPv6 as {@code [addr]:port}). */
    public static NodeId parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("invalid node '" + text + "': expected ip:port");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            return new NodeId(host, Integer.parseInt(text.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid node '" + text + "': port is not a number");
        }
    }

    static boolean isLiteralIp(String ip) {
        if (IPV4.matcher(ip).matches()) {
            return true;
        }
        // Only hex digits, colons and dots: the JDK then parses it as a literal and never asks DNS.
        if (ip.contains(":") && IPV6.matcher(ip).matches()) {
            try {
                java.net.InetAddress.getByName(ip);
                return true;
            } catch (java.net.UnknownHostException e) {
                return false;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return ip.contains(":") ? "[" + ip + "]:" + port : ip + ":" + port;
    }
}
