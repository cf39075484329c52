package dev.streamform.policies.project;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Common time zone abbreviations ({@code PST}, {@code IST}, {@code CEST}) and the region zones they
 * are used for, so that {@code check} can say that {@code time_zone: PST} is an abbreviation and
 * name {@code America/Los_Angeles}, instead of the zone nearest it by spelling ({@code CET}, hours
 * away). An abbreviation names no zone: several regions share one ({@code IST} is India, Ireland
 * and Israel), and it says nothing of a region's clock changes. The list is short on purpose: the
 * abbreviations people write, not every one in use; an unlisted one gets no guess at all.
 *
 * <p>Zones that are spelt like abbreviations ({@code CET}, {@code EET}, {@code UTC}) are zones and
 * never reach this list: {@code check} accepts them as they are.
 */
final class ZoneAbbreviations {
  private ZoneAbbreviations() {}

  /** A region zone an abbreviation is used for, with the region in words. */
  record Region(String zone, String where) {
    @Override
    public String toString() {
      return zone + " (" + where + ")";
    }
  }

  private static final Map<String, List<Region>> REGIONS = new LinkedHashMap<>();

  private static void add(List<Region> regions, String... abbreviations) {
    for (String a : abbreviations) {
      REGIONS.put(a, regions);
    }
  }

  private static Region r(String zone, String where) {
    return new Region(zone, where);
  }

  static {
    add(List.of(r("America/Los_Angeles", "US Pacific")), "PST", "PDT", "PT");
    add(
        List.of(r("America/Denver", "US Mountain"), r("America/Phoenix", "Arizona")),
        "MST",
        "MDT",
        "MT");
    add(List.of(r("America/Chicago", "US Central"), r("Asia/Shanghai", "China")), "CST");
    add(List.of(r("America/Chicago", "US Central")), "CDT", "CT");
    add(List.of(r("America/New_York", "US Eastern")), "EST", "EDT", "ET");
    add(List.of(r("America/Anchorage", "Alaska")), "AKST", "AKDT");
    add(List.of(r("Pacific/Honolulu", "Hawaii")), "HST", "HDT");
    add(
        List.of(
            r("America/Halifax", "Atlantic Canada"),
            r("America/Puerto_Rico", "Puerto Rico"),
            r("Asia/Riyadh", "Arabia")),
        "AST");
    add(List.of(r("America/Halifax", "Atlantic Canada")), "ADT");
    add(List.of(r("America/St_Johns", "Newfoundland")), "NST", "NDT");
    add(List.of(r("Europe/London", "UK"), r("Asia/Dhaka", "Bangladesh")), "BST");
    add(
        List.of(
            r("Asia/Kolkata", "India"),
            r("Europe/Dublin", "Ireland"),
            r("Asia/Jerusalem", "Israel")),
        "IST");
    add(List.of(r("Europe/Berlin", "Central Europe")), "CEST", "MEZ", "MESZ");
    add(List.of(r("Europe/Athens", "Eastern Europe")), "EEST");
    add(List.of(r("Europe/Lisbon", "Western Europe")), "WEST");
    add(List.of(r("Europe/Moscow", "Moscow")), "MSK");
    add(List.of(r("Asia/Tokyo", "Japan")), "JST");
    add(List.of(r("Asia/Seoul", "Korea")), "KST");
    add(List.of(r("Asia/Hong_Kong", "Hong Kong")), "HKT");
    add(List.of(r("Asia/Singapore", "Singapore")), "SGT");
    add(List.of(r("Asia/Manila", "Philippines")), "PHT");
    add(List.of(r("Asia/Jakarta", "Western Indonesia")), "WIB");
    add(List.of(r("Asia/Bangkok", "Indochina")), "ICT");
    add(List.of(r("Asia/Karachi", "Pakistan")), "PKT");
    add(
        List.of(r("Australia/Sydney", "Australia East"), r("Australia/Brisbane", "Queensland")),
        "AEST");
    add(List.of(r("Australia/Sydney", "Australia East")), "AEDT");
    add(
        List.of(
            r("Australia/Adelaide", "South Australia"),
            r("Australia/Darwin", "Northern Territory")),
        "ACST");
    add(List.of(r("Australia/Adelaide", "South Australia")), "ACDT");
    add(List.of(r("Australia/Perth", "Western Australia")), "AWST");
    add(List.of(r("Pacific/Auckland", "New Zealand")), "NZST", "NZDT");
    add(List.of(r("Africa/Johannesburg", "South Africa")), "SAST");
    add(List.of(r("Africa/Lagos", "West Africa")), "WAT");
    add(List.of(r("Africa/Maputo", "Central Africa")), "CAT");
    add(List.of(r("Africa/Nairobi", "East Africa")), "EAT");
    add(List.of(r("America/Sao_Paulo", "Brazil")), "BRT");
    add(List.of(r("America/Argentina/Buenos_Aires", "Argentina")), "ART");
  }

  /** The region zones {@code name} is the abbreviation of, in any case; empty when it is none. */
  static Optional<List<Region>> regions(String name) {
    return Optional.ofNullable(REGIONS.get(name.trim().toUpperCase(Locale.ROOT)));
  }

  /**
   * Whether {@code name} looks like an abbreviation: 2 to 5 upper-case letters. Such a name is
   * never given a zone by edit distance: the zones nearest its spelling ({@code CET}, {@code EET},
   * {@code MET}) are hours away from what it means.
   */
  static boolean looksLikeOne(String name) {
    return name.matches("[A-Z]{2,5}");
  }

  /**
   * The fix for an abbreviation: {@code time_zone: America/Los_Angeles (US Pacific)}, or for one
   * shared by several regions {@code time_zone: Asia/Kolkata (India), Europe/Dublin (Ireland) or
   * Asia/Jerusalem (Israel)}.
   */
  static String fix(List<Region> regions) {
    String first = regions.get(0).toString();
    if (regions.size() == 1) {
      return "write the region's IANA name, e.g. time_zone: " + first;
    }
    List<String> rest =
        regions.subList(1, regions.size()).stream()
            .map(Region::toString)
            .collect(Collectors.toList());
    return "write the IANA name of the region it means: time_zone: "
        + first
        + (rest.size() == 1
            ? " or " + rest.get(0)
            : ", "
                + String.join(", ", rest.subList(0, rest.size() - 1))
                + " or "
                + rest.get(rest.size() - 1));
  }
}
