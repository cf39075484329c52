package dev.streamform.cli;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The Streamform checkout a command runs from: the folder holding {@code runners-config/} (runner
 * profiles, cluster scripts) and the job jar's module. The launcher names it with {@code
 * -Dstreamform.home}; without that (tests, an IDE) it is found by walking up from this class's jar
 * or classes folder, then from the working folder.
 */
final class Home {
  static final String PROPERTY = "streamform.home";

  private Home() {}

  static Path dir() {
    String named = System.getProperty(PROPERTY);
    if (named != null) {
      return Path.of(named).toAbsolutePath().normalize();
    }
    Path found = upFrom(codeLocation());
    if (found == null) {
      found = upFrom(Path.of("").toAbsolutePath());
    }
    if (found == null) {
      throw new IllegalStateException(
          "cannot find the Streamform checkout (a folder with runners-config/): run streamform"
              + " through its launcher, or set -D"
              + PROPERTY
              + "=<checkout>");
    }
    return found;
  }

  private static Path upFrom(Path start) {
    for (Path at = start; at != null; at = at.getParent()) {
      if (Files.isDirectory(at.resolve("runners-config").resolve("profiles"))) {
        return at;
      }
    }
    return null;
  }

  private static Path codeLocation() {
    try {
      return Path.of(Home.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException | RuntimeException e) {
      return null;
    }
  }
}
