package dev.streamform.runners.postgres;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free ports for the local services tests start (PostgreSQL, a Flink cluster), chosen below the
 * kernel's ephemeral range.
 *
 * <p>A port from {@code new ServerSocket(0)} is an ephemeral one: once the probe closes it, the
 * kernel may hand it to the next process that binds port 0. The cluster's TaskManager binds its RPC
 * service to port 0 while the JobManager is still starting, and once took the REST port the test
 * had chosen ({@code BindException: Could not start rest endpoint on any port in port range
 * 43427}). A port below the ephemeral range is never handed out that way.
 */
public final class LocalPorts {
  private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  /** Linux's default lower bound, used where the range cannot be read. */
  private static final int DEFAULT_EPHEMERAL_LOW = 32768;

  private static final int LOWEST = 20000;

  private LocalPorts() {}

  /** The first port of the kernel's ephemeral range. */
  public static int ephemeralLow() {
    // Files.readString gets only the first byte of this /proc file (its size reads as 0).
    try (BufferedReader reader = Files.newBufferedReader(RANGE)) {
      String[] range = reader.readLine().trim().split("\\s+");
      return Integer.parseInt(range[0]);
    } catch (IOException | RuntimeException unreadable) {
      return DEFAULT_EPHEMERAL_LOW;
    }
  }

  /** A port on 127.0.0.1 that nothing listens on, below the ephemeral range. */
  public static int free() throws IOException {
    int high = Math.max(LOWEST + 1000, ephemeralLow());
    int start = ThreadLocalRandom.current().nextInt(LOWEST, high);
    for (int i = 0; i < high - LOWEST; i++) {
      int port = LOWEST + (start - LOWEST + i) % (high - LOWEST);
      try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return probe.getLocalPort();
      } catch (IOException taken) {
        // try the next one
      }
    }
    throw new IOException("no free port on 127.0.0.1 between " + LOWEST + " and " + high);
  }
}
