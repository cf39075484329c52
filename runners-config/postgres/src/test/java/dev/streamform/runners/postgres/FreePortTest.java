package dev.streamform.runners.postgres;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.RepeatedTest;

class FreePortTest {
  @RepeatedTest(20)
  void aPortIsFreeAndNeverOneTheKernelHandsOut() throws Exception {
    int port = LocalPostgres.freePort();
    assertTrue(
        port < LocalPostgres.ephemeralLow(),
        port + " is in the ephemeral range from " + LocalPostgres.ephemeralLow());
    try (ServerSocket bound = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertTrue(bound.isBound());
    }
  }
}
