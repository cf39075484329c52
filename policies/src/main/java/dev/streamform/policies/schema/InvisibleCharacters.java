package dev.streamform.policies.schema;

import java.util.Locale;
import java.util.Optional;

/**
 * Characters a reader cannot see in a message: a no-break space that looks like a space, a
 * zero-width space that looks like nothing. A message quoting a text that holds one names it and
 * where it is, or two texts that print the same would differ without a visible reason.
 */
public final class InvisibleCharacters {
  private InvisibleCharacters() {}

  /**
   * "holds a no-break space (U+00A0) at character 2" for the first invisible character of {@code
   * text} (characters counted from 1), or empty when it has none.
   */
  public static Optional<String> describe(String text) {
    int position = 0;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      position++;
      if (isInvisible(cp)) {
        return Optional.of(
            "holds "
                + name(cp)
                + String.format(Locale.ROOT, " (U+%04X)", cp)
                + " at character "
                + position);
      }
      i += Character.charCount(cp);
    }
    return Optional.empty();
  }

  /**
   * {@code text} with each character one cannot see written as its escape, as a double-quoted
   * string in a fixture writes it: a backslash, {@code u} and the four hex digits {@link #describe}
   * names (U+00A0), or {@code U} and eight beyond U+FFFF. For a place that shows the text itself,
   * such as a table's cell; a text without such a character is returned as it is.
   */
  public static String escaped(String text) {
    if (describe(text).isEmpty()) {
      return text;
    }
    StringBuilder b = new StringBuilder();
    text.codePoints()
        .forEach(
            cp -> {
              if (isInvisible(cp)) {
                b.append(
                    cp > 0xFFFF
                        ? String.format(Locale.ROOT, "\\U%08X", cp)
                        : String.format(Locale.ROOT, "\\u%04X", cp));
              } else {
                b.appendCodePoint(cp);
              }
            });
    return b.toString();
  }

  /**
   * {@code text} with each character a terminal acts on or XML 1.0 forbids written as its escape,
   * as {@link #escaped} writes it (a backslash, {@code u} and four hex digits): every control
   * character (U+0000–U+001F, U+007F–U+009F) but a line feed and a tab, U+FFFE, U+FFFF and a lone
   * surrogate. For a whole report (a fixture's problems quote its values as they are): on a
   * terminal such a character would move the cursor or colour what follows, and in JUnit XML or the
   * HTML report it would make the file one a parser refuses (ADR 0240). A text without one is
   * returned as it is.
   */
  public static String controlsEscaped(String text) {
    if (text == null) {
      return null;
    }
    StringBuilder b = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean pair =
          Character.isHighSurrogate(c)
              && i + 1 < text.length()
              && Character.isLowSurrogate(text.charAt(i + 1));
      if (pair) {
        if (b != null) {
          b.append(c).append(text.charAt(i + 1));
        }
        i++;
      } else if (needsEscape(c)) {
        if (b == null) {
          b = new StringBuilder(text.length() + 16).append(text, 0, i);
        }
        b.append(String.format(Locale.ROOT, "\\u%04X", (int) c));
      } else if (b != null) {
        b.append(c);
      }
    }
    return b == null ? text : b.toString();
  }

  /** Not for a character of a surrogate pair: a surrogate reaching here is a lone one. */
  private static boolean needsEscape(char c) {
    if (c == '\n' || c == '\t') {
      return false;
    }
    return Character.isISOControl(c) || c == '\uFFFE' || c == '\uFFFF' || Character.isSurrogate(c);
  }

  private static boolean isInvisible(int cp) {
    if (cp == ' ') {
      return false;
    }
    int type = Character.getType(cp);
    return type == Character.FORMAT
        || type == Character.SPACE_SEPARATOR
        || type == Character.LINE_SEPARATOR
        || type == Character.PARAGRAPH_SEPARATOR
        || type == Character.CONTROL;
  }

  private static String name(int cp) {
    switch (cp) {
      case 0x00A0:
        return "a no-break space";
      case 0x202F:
        return "a narrow no-break space";
      case 0x200B:
        return "a zero-width space";
      case 0x200C:
        return "a zero-width non-joiner";
      case 0x200D:
        return "a zero-width joiner";
      case 0x2060:
        return "a word joiner";
      case 0xFEFF:
        return "a byte-order mark (zero-width no-break space)";
      case 0x00AD:
        return "a soft hyphen";
      case '\t':
        return "a tab";
      default:
        String n = Character.getName(cp);
        return n == null ? "an invisible character" : "the character " + n;
    }
  }
}
