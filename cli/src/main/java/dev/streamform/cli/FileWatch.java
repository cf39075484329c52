package dev.streamform.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code streamform test --watch}: waits for a change below the given paths and runs the fixtures
 * again, until interrupted. A burst of changes (an editor writes a temporary file, then renames it)
 * is one run: after the first change the watch waits until the folders are quiet for {@link
 * #QUIET_MS}. Folders made after the start are watched too.
 */
final class FileWatch {
  /** How long the folders must be quiet after a change before the run starts. */
  static final long QUIET_MS = 300;

  /** A run of the fixtures; its exit status. */
  interface Run {
    int run() throws IOException;
  }

  private FileWatch() {}

  /**
   * Runs {@code run} after every change below {@code paths} (a file's folder for a file), until the
   * thread is interrupted; returns the last run's status if the watch cannot go on.
   */
  static int untilInterrupted(List<Path> paths, PrintWriter err, Run run)
      throws IOException, InterruptedException {
    try (WatchService watcher = FileSystems.getDefault().newWatchService()) {
      Set<Path> folders = new LinkedHashSet<>();
      for (Path p : paths) {
        Path root = Files.isDirectory(p) ? p : p.toAbsolutePath().getParent();
        try (Stream<Path> walk = Files.walk(root)) {
          walk.filter(Files::isDirectory).forEach(folders::add);
        }
      }
      for (Path folder : folders) {
        register(watcher, folder);
      }
      int status = 0;
      while (true) {
        err.println(
            "streamform test: watching "
                + folders.size()
                + (folders.size() == 1 ? " folder" : " folders")
                + " for changes (Ctrl-C to stop)");
        err.flush();
        WatchKey key = watcher.take();
        do {
          for (var event : key.pollEvents()) {
            Object context = event.context();
            if (context instanceof Path name) {
              Path changed = ((Path) key.watchable()).resolve(name);
              if (Files.isDirectory(changed) && folders.add(changed)) {
                register(watcher, changed);
              }
            }
          }
          key.reset();
          key = watcher.poll(QUIET_MS, TimeUnit.MILLISECONDS);
        } while (key != null);
        try {
          status = run.run();
        } catch (UncheckedIOException e) {
          err.println("streamform test: " + e.getCause().getMessage());
          status = 1;
        }
      }
    }
  }

  private static void register(WatchService watcher, Path folder) throws IOException {
    folder.register(
        watcher,
        StandardWatchEventKinds.ENTRY_CREATE,
        StandardWatchEventKinds.ENTRY_MODIFY,
        StandardWatchEventKinds.ENTRY_DELETE);
  }
}
