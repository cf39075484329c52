package dev.streamform.runners.postgres;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.RepeatedTest;

class LocalPortsTest {
  @RepeatedTest(20)
  void aPortIsFreeAndNeverOneTheKernelHandsOut() throws Exception {
    int port = LocalPorts.free();
    assertTrue(
        port < LocalPorts.ephemeralLow(),
        port + " is in the ephemeral range from " + LocalPorts.ephemeralLow());
    try (ServerSocket bound = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertTrue(bound.isBound());
    }
  }
}
