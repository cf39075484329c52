package dev.streamform.cli;

import java.util.regex.Pattern;

/**
 * An argument of a command a message prints for the user to copy, quoted as a POSIX shell reads it
 * back: as is when it has only characters no shell treats specially, else in single quotes (a
 * single quote inside as {@code '\''}), so a path such as {@code my project/orders} is one word.
 */
final class ShellWords {
  private ShellWords() {}

  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:=@%+,-]+");

  /** {@code word} as one shell word. */
  static String quote(Object word) {
    String s = String.valueOf(word);
    if (PLAIN.matcher(s).matches()) {
      return s;
    }
    return "'" + s.replace("'", "'\\''") + "'";
  }
}
