import java.net.InetAddress;
import java.net.ServerSocket;

/** Prints a port free on 127.0.0.1 right now (java FreePort.java), for scripts that start servers. */
public class FreePort {
    public static void main(String[] args) throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            System.out.println(socket.getLocalPort());
        }
    }
}
