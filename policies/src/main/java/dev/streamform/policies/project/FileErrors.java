package dev.streamform.policies.project;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Locale;

/**
 * What the file system said about a file it would not read, write or list, in plain words for the
 * line that names the file: "permission denied", "does not exist", "is a folder, not a file" —
 * never a Java exception's class name, and never the path again (the line names it already).
 */
public final class FileErrors {
  private FileErrors() {}

  /**
   * Why {@code e} happened, in plain words without the file's name, e.g. "permission denied" for an
   * {@link AccessDeniedException}, "is a folder, not a file" when the path is a folder.
   */
  public static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "does not exist";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof NotDirectoryException) {
      return "is not a folder";
    }
    if (e instanceof DirectoryNotEmptyException) {
      return "is a folder that is not empty";
    }
    if (e instanceof FileAlreadyExistsException) {
      return "already exists";
    }
    if (e instanceof MalformedInputException m) {
      return "is not UTF-8 text (a malformed sequence of " + m.getInputLength() + " byte(s))";
    }
    if (e instanceof java.nio.charset.CharacterCodingException) {
      return "is not UTF-8 text";
    }
    if (e instanceof FileSystemException f) {
      String why = f.getReason();
      if (why == null || why.isBlank()) {
        return "the file system refused it";
      }
      return plain(why);
    }
    String message = e.getMessage();
    if (message == null || message.isBlank()) {
      return "an input/output error";
    }
    // reading a folder says "Is a directory" in a plain IOException
    return plain(message.replaceAll("\\s*\\n\\s*", " ").trim());
  }

  /**
   * What is wrong with a file that could not be read, after its name: "does not exist" when it is
   * missing, else "cannot be read: " and {@link #reason}, e.g. "cannot be read: permission denied".
   */
  public static String cannotRead(IOException e) {
    return e instanceof NoSuchFileException ? "does not exist" : "cannot be read: " + reason(e);
  }

  /**
   * The fix for a file that could not be read: {@code create} when it does not exist, "check the
   * file's permissions" when they refused it, "give a file, not a folder" for a folder, else {@code
   * otherwise}.
   */
  public static String fix(IOException e, String create, String otherwise) {
    if (e instanceof NoSuchFileException) {
      return create;
    }
    if (e instanceof AccessDeniedException) {
      return "check the file's permissions";
    }
    if (reason(e).equals("is a folder, not a file")) {
      return "give a file, not a folder";
    }
    return otherwise;
  }

  /**
   * The deepest {@link FileSystemException} among {@code e} and its causes, said as the file it
   * names and {@link #reason}, e.g. "/p/payments.jsonl: permission denied"; null when there is none
   * (a job's failure wraps the reader's exception in the runner's own).
   */
  public static String line(Throwable e) {
    FileSystemException deepest = null;
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof FileSystemException f && f.getFile() != null) {
        deepest = f;
      }
    }
    return deepest == null ? null : deepest.getFile() + ": " + reason(deepest);
  }

  /** The operating system's reasons, as a user's sentence says them. */
  private static String plain(String reason) {
    switch (reason.toLowerCase(Locale.ROOT)) {
      case "is a directory":
        return "is a folder, not a file";
      case "not a directory":
        return "a part of its path is a file, not a folder";
      case "permission denied":
        return "permission denied";
      case "no such file or directory":
        return "does not exist";
      case "read-only file system":
        return "is on a read-only file system";
      case "no space left on device":
        return "no space is left on the device";
      default:
        return reason;
    }
  }
}
