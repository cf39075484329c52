package dev.streamform.endtoend;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the services' scripts are, and whether a port on 127.0.0.1 is taken. */
final class Checkout {
  private Checkout() {}

  /** The Streamform checkout the tests run in (the folder holding {@code runners-config/bin}). */
  static Path home() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("runners-config/bin"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("not inside a Streamform checkout");
    }
    return dir;
  }

  /** True when something listens on {@code port} of 127.0.0.1. */
  static boolean listening(int port) {
    try (Socket s = new Socket("127.0.0.1", port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
