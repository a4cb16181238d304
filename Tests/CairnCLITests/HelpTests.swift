import Testing

@testable import CairnCLI

/// Every `--help`, verbatim: the top level, each group and each command. The usage line and the "Options:" section
/// come from each command's `Option` declarations, so a changed declaration shows here. A new command adds its
/// entry (run `cairn PATH --help`, read it as a newcomer would, paste it).
private let expectedHelp: [String: String] = [
    "cairn export": #"""
    Files for other systems: the Regimen and outcomes as FHIR.

    Usage: cairn export <command> [options]

    Commands:
      fhir   Write the Regimen and outcomes as one FHIR R4 document (JSON) for a clinician's system.
    """#,
    "cairn export fhir": #"""
    Write the Regimen and outcomes as one FHIR R4 document (JSON) for a clinician's system.

    Usage: cairn export fhir --out FILE [--from DATE] [--to DATE] [--journals LIST] [--name NAME]

    One FHIR R4 Bundle of type document: a Composition whose text says these are self-reported records
    and what the file holds, a Patient (with nothing identifying unless you give --name), each product as
    a MedicationStatement, each dose logged as taken or skipped as a MedicationAdministration (a skipped
    dose is never "taken"), and each day's outcome value as an Observation, with its LOINC code where a
    standard one exists. No photos. By default the whole history of both journals.

    Options:
      --out FILE               Write to FILE (created with owner-only access).
      --from DATE, --to DATE   Only days in this range, YYYY-MM-DD (default: the whole history).
      --journals LIST          regimen, outcomes or regimen,outcomes (default: both).
      --name NAME              A name for the Patient (default: none).
    """#,
    "cairn": #"""
    Cairn: a private health journal. Everything stays on this computer.

    Usage: cairn [--data-dir DIR] [--vault-passphrase-file FILE] <command> [options]

    Commands:
      serve      Start the local web app on this computer (127.0.0.1 only) and print its address.
      remind     Show dose reminders as desktop notifications, with Taken, Skip and Snooze.
      doctor     Check the vault (database, every photo, leftovers) and report which native parts are present.
      inspect    List the metadata (EXIF, GPS, XMP, comments, ...) a JPEG or PNG file carries.
      skin       The Skin journal: areas, photos and how much they differ from the first one.
      smile      Smile journal: mouth crops of your smile, to compare over time.
      regimen    Supplements and medications: products, schedules, today's doses, the log and outcome series.
      backup     Encrypted backups of the vault, checked before they count.
      export     Files for other systems: the Regimen and outcomes as FHIR.
      settings   Vault-wide settings: the lock, and deleting all data.

    Global options:
      --data-dir DIR                 Use DIR as the vault. Default: $CAIRN_HOME if set, else
                                     $XDG_DATA_HOME/cairn, else ~/.local/share/cairn.
      --vault-passphrase-file FILE   When the vault is locked, read its passphrase from the first
                                     line of FILE (else it is asked at the terminal).
      --vault-passphrase-fd N        The same, from file descriptor N.
      -h, --help                     Show help; 'cairn <command> --help' for one command.
      --version                      Show the version.

    While 'cairn serve' has the vault unlocked, commands run inside it and need no passphrase
    (all but serve, remind, doctor, inspect, backup verify, backup restore and settings lock);
    relative paths are taken from this folder.

    Exit codes: 0 done; 1 a problem with the input or the vault (said on stderr); 2 usage error.
    """#,
    "cairn serve": #"""
    Start the local web app on this computer (127.0.0.1 only) and print its address.

    Usage: cairn serve [--port N] [--host HOST] [--open] [--phone] [--phone-address ADDR] [--phone-port N] [--phone-minutes N]

    The printed address carries a secret for this launch: open it in a browser on this computer.
    A vault with a lock opens on a page that asks for its passphrase (or give --vault-passphrase-file FILE
    before 'serve' to unlock it at start); it locks again on Lock now, after the idle time set in Settings,
    and when the server stops. The Lock section of Settings turns the lock on or off and changes the
    passphrase while it runs. While it has the vault unlocked, other cairn commands run inside it,
    through serve.sock in the vault folder (a unix socket only you can use). Stop with Ctrl+C.
    --phone (or Settings > Use your phone) opens a phone session: for --phone-minutes, Cairn also listens
    over TLS, with a certificate it makes for this vault, on one private address of this computer (by
    default the default route's, if it is private), for phones on that network only. It prints the
    phone's address, and a QR code to pair with when its output is a terminal; a phone joins only after
    you allow it on the computer. The session ends on End, when the time is up, when the vault locks and
    when the server stops; then nothing listens there. Never forward the phone port from a router.

    Options:
      --port N               The port to listen on (default 8737; 0 picks a free one).
      --host HOST            127.0.0.1 or localhost. The web app never listens on any other address (phones: --phone).
      --open                 Also open the address in your default browser (what the desktop entry does).
      --phone                Open a phone session at start (once the vault is unlocked).
      --phone-address ADDR   The phone session's address: a private (192.168.x.x, 10.x.x.x, 172.16-31.x.x, fc00::/7),
                             carrier-grade NAT (100.64-127.x.x, e.g. Tailscale) or loopback address of this computer;
                             a public one is refused. Default: the default route's, if private.
      --phone-port N         The phone session's port (default 8738; 0 picks a free one).
      --phone-minutes N      How long a phone session stays open, 1 to 60 (default 15); renewable.
    """#,
    "cairn doctor": #"""
    Check the vault (database, every photo, leftovers) and report which native parts are present.

    Usage: cairn doctor [--json]

    Reads the database (SQLite's integrity check) and every photo whole, decrypted where the vault is locked, and
    compares each with the digest recorded when it was stored; lists photo files no record names, what was kept
    aside in lost+found, and leftovers of commands that were stopped (which it removes, as any command does). Then
    it reports each library Cairn uses and each model file. Exit 0 when the vault is sound (a missing optional part
    is only a warning line), 1 when the vault itself has a problem. A locked vault asks for its passphrase.

    Options:
      --json   Print the report as JSON.
    """#,
    "cairn inspect": #"""
    List the metadata (EXIF, GPS, XMP, comments, ...) a JPEG or PNG file carries.

    Usage: cairn inspect FILE [--json]

    Reads the file's markers or chunks with Cairn's own inspector and lists every kind of metadata in it,
    and for a JPEG every segment and byte its picture does not need (unknown segments such as DNL, bytes
    between segments, padding in the image data, restart markers out of place, unused tables, trailers).
    Nothing is stored. Every photo Cairn writes is checked the same way and carries at most a bare JFIF header.

    Options:
      --json   Print the report as JSON.
    """#,
    "cairn skin": #"""
    The Skin journal: areas, photos and how much they differ from the first one.

    Usage: cairn skin <command> [options]

    Commands:
      areas           List the areas.
      add-area        Add an area to photograph.
      rename-area     Rename an area.
      delete-area     Delete an area and every photo of it (asks for --yes).
      log             Log a photo file of an area and compare it with the area's first photo.
      timeline        List an area's photos, oldest first, with their similarity to the first one.
      compare         Show how similar one photo of an area is to the area's first photo.
      note            Write, remove or list the note of one photo of an area.
      trend           Show how much each photo of an area differs from the first one, over time.
      delete-entry    Delete one photo of an area (asks for --yes).
      compare-batch   Compare pairs of image files listed in a TSV file, storing nothing.
      generate        Add a reproducible series of synthetic demo photos to an area (created if missing).
      report          Write a PDF photo log of one area: every photo with its date, note and similarity, and the trend.
    """#,
    "cairn skin areas": #"""
    List the areas.

    Usage: cairn skin areas [--json]

    Options:
      --json   Print JSON.
    """#,
    "cairn skin add-area": #"""
    Add an area to photograph.

    Usage: cairn skin add-area NAME [--location TEXT] [--guidance TEXT]

    Options:
      --location TEXT   Where on the body the area is, in your words.
      --guidance TEXT   A note on how to take its photos (light, distance), shown when you capture one.
    """#,
    "cairn skin rename-area": #"""
    Rename an area.

    Usage: cairn skin rename-area AREA NEW_NAME
    """#,
    "cairn skin delete-area": #"""
    Delete an area and every photo of it (asks for --yes).

    Usage: cairn skin delete-area AREA --yes

    Options:
      --yes   Confirm that the area and its photos are to be deleted.
    """#,
    "cairn skin log": #"""
    Log a photo file of an area and compare it with the area's first photo.

    Usage: cairn skin log AREA PHOTO [--note TEXT] [--json]

    Options:
      --note TEXT   A note kept with the photo.
      --json        Print JSON.
    """#,
    "cairn skin timeline": #"""
    List an area's photos, oldest first, with their similarity to the first one.

    Usage: cairn skin timeline AREA [--json]

    Options:
      --json   Print JSON.
    """#,
    "cairn skin compare": #"""
    Show how similar one photo of an area is to the area's first photo.

    Usage: cairn skin compare AREA ENTRY [--json]

    ENTRY is a photo's identifier from 'cairn skin timeline' (its first characters are enough).

    Options:
      --json   Print JSON.
    """#,
    "cairn skin note": #"""
    Write, remove or list the note of one photo of an area.

    Usage: cairn skin note AREA ENTRY TEXT | AREA ENTRY --clear | AREA ENTRY --history

    ENTRY is a photo's identifier from 'cairn skin timeline' (its first characters are enough).
    TEXT becomes the photo's note: at most 500 characters; line breaks and tabs are kept,
    other control characters are refused. Put -- before a TEXT that starts with a dash.
    A new note takes the place of the current one, which stays recorded.

    Options:
      --clear     Remove the photo's note (the removal is recorded too).
      --history   List every version of the note, oldest first.
    """#,
    "cairn skin trend": #"""
    Show how much each photo of an area differs from the first one, over time.

    Usage: cairn skin trend AREA [--json]

    Options:
      --json   Print JSON.
    """#,
    "cairn skin delete-entry": #"""
    Delete one photo of an area (asks for --yes).

    Usage: cairn skin delete-entry AREA ENTRY --yes

    Options:
      --yes   Confirm that the photo is to be deleted.
    """#,
    "cairn skin compare-batch": #"""
    Compare pairs of image files listed in a TSV file, storing nothing.

    Usage: cairn skin compare-batch PAIRS.tsv

    Each line is: id<TAB>baseline<TAB>probe, with paths relative to the TSV file's folder. Prints one JSON line
    per pair: id, score (raw distance, higher = more different), similarity (0-100, null when not comparable),
    comparable, and the disclaimer. A pair that cannot be read gets an "error" instead.
    """#,
    "cairn skin generate": #"""
    Add a reproducible series of synthetic demo photos to an area (created if missing).

    Usage: cairn skin generate --area NAME --count N --seed S

    Options:
      --area NAME   The area to add the photos to (created if missing).
      --count N     How many photos to add.
      --seed S      The seed: the same seed gives the same photos.
    """#,
    "cairn skin report": #"""
    Write a PDF photo log of one area: every photo with its date, note and similarity, and the trend.

    Usage: cairn skin report AREA --out FILE [--paper a4|letter] [--force]

    The file is written on this computer and sent nowhere; where it goes next is up to you.

    Options:
      --out FILE          The PDF to write (owner-only access, mode 0600). Nothing half-written is left if it fails.
      --paper a4|letter   Paper size (default a4).
      --force             Replace a file already at FILE (otherwise it is left alone and nothing is written).
    """#,
    "cairn smile": #"""
    Smile journal: mouth crops of your smile, to compare over time.

    Usage: cairn smile <command> [options]

    Commands:
      add       Add photos of your smile: each is cropped to the mouth and only the crop is kept.
      list      List your smile entries, oldest first.
      export    Write one smile crop to a file, exactly as stored.
      compare   Write two smile crops side by side into a new JPEG (not stored in Cairn).
      delete    Delete one smile entry and its crop (asks for --yes).
      report    Write a PDF progress sheet of the mouth crops in date order (only the anonymised crops).
    """#,
    "cairn smile add": #"""
    Add photos of your smile: each is cropped to the mouth and only the crop is kept.

    Usage: cairn smile add FILE|FOLDER... [--note TEXT] [--square X,Y,SIDE] [--json]

    Each photo is read into memory, the mouth is found (face landmarks, else lip colour) and a 768x768 square crop is stored, with the capture date from the photo and which method found the mouth. The photo
    itself is never stored. A folder adds the images directly inside it, in name order.

    A square is stored without asking only when the method that found it is confident: face landmarks with
    plausible lips, a mouth not open wide, a face found upright, the whole mouth inside the square and no eye
    near it. Otherwise (lip colour, a wide-open mouth, a face on its side, a square the photo's edge or the
    eyes pushed) the suggested square is shown with the reasons and, at a terminal, you are asked to keep
    it, skip the photo or type your own square. Without a terminal nothing is stored for that photo: give --square, or use the web page, which
    shows the square on your photo. A square holding an eye is never stored.

    Result for each file: ok, needs a manual crop (nothing stored: give --square for that file, or use the
    web page to place the square), or not an image.

    Options:
      --note TEXT         A note for every entry added.
      --square X,Y,SIDE   Place the crop square yourself (one file only): its top-left corner and side, in the
                          photo's pixels as it is meant to be seen (after rotation).
      --json              Print one result per file as JSON: outcome, detector, the crop square in the
                          photo's pixels, the photo's size, why the square needed a check (checkReasons),
                          and the other faces when there were several.
    """#,
    "cairn smile list": #"""
    List your smile entries, oldest first.

    Usage: cairn smile list [--json]

    Options:
      --json   Print the entries as JSON (with the full IDs and crop squares).
    """#,
    "cairn smile export": #"""
    Write one smile crop to a file, exactly as stored.

    Usage: cairn smile export ID --out PATH [--force]

    Writes the stored crop's bytes unchanged (no re-encoding); it carries no metadata (checked before writing).

    Options:
      --out PATH   The file to write.
      --force      Replace a file already at PATH.
    """#,
    "cairn smile compare": #"""
    Write two smile crops side by side into a new JPEG (not stored in Cairn).

    Usage: cairn smile compare A B --out PATH [--force]

    A goes on the left, B on the right. The new picture carries no metadata (checked before writing).

    Options:
      --out PATH   The file to write, e.g. side-by-side.jpg.
      --force      Replace a file already at PATH.
    """#,
    "cairn smile delete": #"""
    Delete one smile entry and its crop (asks for --yes).

    Usage: cairn smile delete ID --yes

    Options:
      --yes   Confirm that the entry and its crop are to be deleted.
    """#,
    "cairn smile report": #"""
    Write a PDF progress sheet of the mouth crops in date order (only the anonymised crops).

    Usage: cairn smile report --out FILE [--paper a4|letter] [--force]

    The file is written on this computer and sent nowhere; where it goes next is up to you.

    Options:
      --out FILE          The PDF to write (owner-only access, mode 0600). Nothing half-written is left if it fails.
      --paper a4|letter   Paper size (default a4).
      --force             Replace a file already at FILE (otherwise it is left alone and nothing is written).
    """#,
    "cairn regimen": #"""
    Supplements and medications: products, schedules, today's doses, the log and outcome series.

    Usage: cairn regimen <command> [options]

    Commands:
      products    List, add, show and edit products.
      schedules   List, add and change schedules (every change is a dated revision).
      today       Show today's doses: the batch due now, what comes next, and what is logged.
      take        Log a dose as taken: a scheduled dose, an extra dose, or an as-needed dose.
      skip        Log a scheduled dose as skipped (it never counts as taken).
      correct     Correct a log entry: a new entry replaces it, and the history keeps both.
      undo        Undo a log entry: the dose is back to not logged, and the history keeps both entries.
      ledger      List log entries, newest first, corrected entries included.
      export      Export the whole log as CSV or JSON.
      import      Import past doses from a CSV file (another app's history).
      exposure    Sum what was taken per product and per ingredient, per day.
      insights    Compare outcome series before and after changes in what you took.
      report      Write a PDF summary of a period: products, schedules, logged doses, ingredient totals, outcomes, insights.
      scan        Read a Supplement Facts photo and print the proposed ingredients as JSON (nothing is saved).
      labels      The label database (DSLD, imported from its bulk file): import, search, add a product, teach a barcode.
      supply      Counts on hand and when they run out.
      outcomes    Outcome series: daily ratings and other values you track.
      reminders   Reminder preferences: quiet hours, names, repeats, summaries, per schedule, skin photos.
    """#,
    "cairn regimen products": #"""
    List, add, show and edit products.

    Usage: cairn regimen products <command> [options]

    Commands:
      list      List every product (archived ones with --archived).
      add       Add a product with its label rows.
      show      Show a product's label rows and how many revisions it has.
      edit      Save a new revision of a product's label (earlier log entries keep the old one).
      archive   Take a product off your lists; its versions and logged doses stay.
      restore   Put an archived product back on your lists.
    """#,
    "cairn regimen products list": #"""
    List every product (archived ones with --archived).

    Usage: cairn regimen products list [--archived] [--json]

    Options:
      --archived   List the archived products instead.
      --json       Print JSON.
    """#,
    "cairn regimen products add": #"""
    Add a product with its label rows.

    Usage: cairn regimen products add NAME [INGREDIENT ...] --form FORM [--serving AMOUNT] [--brand TEXT] [--accept N] [--json]

      INGREDIENT        A label row written NAME=AMOUNT, e.g. "Vitamin D3=25 mcg" or "Magnesium=200 mg"
                        (or a NAME alone for a row without an amount); a form and the %DV may follow:
                        "Magnesium (as magnesium glycinate)=200 mg, 48% DV". Names are matched against Cairn's
                        ingredient catalogue; rows it does not know are kept and marked "not in catalogue".
    Rows are checked as scanned ones are (catalogue, unit, usual range, upper limit, %DV, a missing amount); a
    flagged row is saved only with --accept N, after you have checked it. Without it nothing is saved.
    Amounts on the label are checked: an unknown unit, a negative amount or one no serving can hold is
    refused and nothing is saved.

    Options:
      --form FORM        capsule, softgel, tablet, chewable, lozenge, gummy, powder, liquid, drops, spray,
                         packet or other.
      --serving AMOUNT   One serving: a count ("2" capsules, the default is 1), a mass ("5 g") or a volume ("1 mL").
      --brand TEXT       The brand, if any.
      --accept N         Save flagged INGREDIENT row N (its number, from 1) as typed; repeat per row, or "2,5".
      --json             Print JSON.
    """#,
    "cairn regimen products show": #"""
    Show a product's label rows and how many revisions it has.

    Usage: cairn regimen products show PRODUCT [--json]

    PRODUCT is a product id or its exact name.

    Options:
      --json   Print JSON.
    """#,
    "cairn regimen products edit": #"""
    Save a new revision of a product's label (earlier log entries keep the old one).

    Usage: cairn regimen products edit PRODUCT [INGREDIENT ...] [--name TEXT] [--form FORM] [--serving AMOUNT] [--brand TEXT] [--accept N] [--json]

    Options not given keep their current value. INGREDIENT rows, when given, replace all rows; a row named as
    before keeps its form and catalogue entry unless you write them, and its %DV while the amount is unchanged.
    A row left as it was keeps the decision made when it was saved; an edit that changes nothing saves nothing.
      INGREDIENT        A label row written NAME=AMOUNT, e.g. "Vitamin D3=25 mcg" or "Magnesium=200 mg"
                        (or a NAME alone for a row without an amount); a form and the %DV may follow:
                        "Magnesium (as magnesium glycinate)=200 mg, 48% DV". Names are matched against Cairn's
                        ingredient catalogue; rows it does not know are kept and marked "not in catalogue".
    Rows are checked as scanned ones are (catalogue, unit, usual range, upper limit, %DV, a missing amount); a
    flagged row is saved only with --accept N, after you have checked it. Without it nothing is saved.

    Options:
      --name TEXT        The new name.
      --form FORM        capsule, softgel, tablet, chewable, lozenge, gummy, powder, liquid, drops, spray,
                         packet or other.
      --serving AMOUNT   One serving: a count ("2" capsules), a mass ("5 g") or a volume ("1 mL").
      --brand TEXT       The brand.
      --accept N         Save flagged INGREDIENT row N (its number, from 1) as typed; repeat per row, or "2,5".
      --json             Print JSON.
    """#,
    "cairn regimen products archive": #"""
    Take a product off your lists; its versions and logged doses stay.

    Usage: cairn regimen products archive PRODUCT

    PRODUCT is a product id or its exact name. Stop its schedules first. 'products restore' puts it back.
    """#,
    "cairn regimen products restore": #"""
    Put an archived product back on your lists.

    Usage: cairn regimen products restore PRODUCT

    PRODUCT is a product id or its exact name ('products list --archived' lists them).
    """#,
    "cairn regimen schedules": #"""
    List, add and change schedules (every change is a dated revision).

    Usage: cairn regimen schedules <command> [options]

    Commands:
      list      List every schedule with its newest revision.
      add       Add a schedule for a product.
      edit      Change a schedule from a given day; earlier days keep what was in force.
      pause     Pause a schedule from a day (a revision with no doses).
      resume    Resume a paused schedule from a day.
      stop      Stop a schedule from a day, for good (its history stays).
      history   Show every revision of a schedule.
    """#,
    "cairn regimen schedules list": #"""
    List every schedule with its newest revision.

    Usage: cairn regimen schedules list [--json]

    Options:
      --json   Print JSON.
    """#,
    "cairn regimen schedules add": #"""
    Add a schedule for a product.

    Usage: cairn regimen schedules add PRODUCT [--times LIST] [--days DAYS] [--servings N] [--start DATE] [--end DATE] [--zone ZONE|local] [--json]

    PRODUCT is a product id or its exact name.

    Options:
      --times LIST        Times of day, HH:MM separated by commas (08:00,21:00). Times follow you: 08:00 means
                          08:00 wherever you are, unless --zone names a zone.
      --days DAYS         daily (default), weekdays such as mon,wed,fri, every:N (every N days from the start),
                          or as-needed (no times; log each dose with 'take --as-needed').
      --servings N        Servings per dose (default 1; 0.5 is allowed).
      --start DATE        First day, YYYY-MM-DD (default today).
      --end DATE          Last day, if any.
      --zone ZONE|local   Keep the times on one zone's clock, such as America/New_York, wherever you are;
                          local (the default) makes them follow you.
      --json              Print JSON.
    """#,
    "cairn regimen schedules edit": #"""
    Change a schedule from a given day; earlier days keep what was in force.

    Usage: cairn regimen schedules edit SCHEDULE [--times LIST] [--days DAYS] [--servings N] [--end DATE|none] [--zone ZONE|local] [--from DATE] [--json]

    Saves a new revision. Options not given keep their current value.

    Options:
      --times LIST        Times of day, HH:MM separated by commas (08:00,21:00). Times follow you: 08:00 means
                          08:00 wherever you are, unless --zone names a zone.
      --days DAYS         daily (default), weekdays such as mon,wed,fri, every:N (every N days from the start),
                          or as-needed (no times; log each dose with 'take --as-needed').
      --servings N        Servings per dose (default 1; 0.5 is allowed).
      --end DATE|none     New last day, or none.
      --zone ZONE|local   Keep the times on one zone's clock, such as America/New_York, wherever you are;
                          local (the default) makes them follow you.
      --from DATE         The first day the change is in force (default today). It must be after the day the
                          previous change started, and after any day with logged doses.
      --json              Print JSON.
    """#,
    "cairn regimen schedules pause": #"""
    Pause a schedule from a day (a revision with no doses).

    Usage: cairn regimen schedules pause SCHEDULE [--from DATE]

    Options:
      --from DATE   The first day of the change, YYYY-MM-DD (default today).
    """#,
    "cairn regimen schedules resume": #"""
    Resume a paused schedule from a day.

    Usage: cairn regimen schedules resume SCHEDULE [--from DATE]

    Options:
      --from DATE   The first day of the change, YYYY-MM-DD (default today).
    """#,
    "cairn regimen schedules stop": #"""
    Stop a schedule from a day, for good (its history stays).

    Usage: cairn regimen schedules stop SCHEDULE [--from DATE]

    Options:
      --from DATE   The first day of the change, YYYY-MM-DD (default today).
    """#,
    "cairn regimen schedules history": #"""
    Show every revision of a schedule.

    Usage: cairn regimen schedules history SCHEDULE [--json]

    Options:
      --json   Print JSON.
    """#,
    "cairn regimen today": #"""
    Show today's doses: the batch due now, what comes next, and what is logged.

    Usage: cairn regimen today [--json]

    Today is the date where you are now (the TZ zone, else the system's). Dose times follow you: a dose at
    08:00 is due at 08:00 local time after a trip, and each dose of a day exists once, so travel and
    daylight-saving changes never add or drop one. A time skipped by a daylight-saving change is due at
    the first minute after it; a time that happens twice is due the first time.

    Log a dose with 'cairn regimen take DOSE-ID' or 'cairn regimen skip DOSE-ID'.

    Options:
      --json   Print the view as JSON.
    """#,
    "cairn regimen take": #"""
    Log a dose as taken: a scheduled dose, an extra dose, or an as-needed dose.

    Usage: cairn regimen take DOSE-ID [--at TIME] | --extra PRODUCT [--servings N] [--at TIME] | --as-needed SCHEDULE [--at TIME]

    DOSE-ID comes from 'cairn regimen today': the whole id, any unique start of it, or its first
    characters with the day and time (e760dd42_2026-03-10_0800). Logging a dose that is already logged
    (from here, the page or a reminder) changes nothing and says so. A dose of an earlier day logged
    without --at is recorded at its scheduled time, so it counts on the day it was due. A time is never
    later than now, and is on the dose's own day or today. A dose more than an hour before its time is
    asked about at a terminal; without one it is refused unless --yes is given.

    Options:
      --at TIME              When it was taken: HH:MM on the dose's day, YYYY-MM-DD HH:MM, or an ISO
                             8601 time (2026-03-10T08:05:00Z). Default: now (a past day's dose: its time).
      --extra PRODUCT        Log an unscheduled dose of a product (id or exact name).
      --servings N           Servings of an extra dose (default 1).
      --as-needed SCHEDULE   Log a dose of an as-needed schedule.
      --yes                  Log a dose more than an hour before its time without being asked.
      --json                 Print JSON.
    """#,
    "cairn regimen skip": #"""
    Log a scheduled dose as skipped (it never counts as taken).

    Usage: cairn regimen skip DOSE-ID [--at TIME] [--json]

    Options:
      --at TIME   HH:MM on the dose's day, YYYY-MM-DD HH:MM, or an ISO 8601 time. Default: now
                  (a past day's dose: its time).
      --json      Print JSON.
    """#,
    "cairn regimen correct": #"""
    Correct a log entry: a new entry replaces it, and the history keeps both.

    Usage: cairn regimen correct RECORD-ID --status taken|skipped [--at TIME]

    RECORD-ID comes from 'cairn regimen ledger' (any unique start of it, 4 characters or more).

    Options:
      --status taken|skipped   What really happened.
      --at TIME                When: HH:MM on the entry's day, or an ISO 8601 time. Default: the entry's time.
    """#,
    "cairn regimen ledger": #"""
    List log entries, newest first, corrected entries included.

    Usage: cairn regimen ledger [--from DATE] [--to DATE] [--product PRODUCT] [--limit N] [--offset N] [--json]

    Options:
      --from DATE, --to DATE   Only entries whose local date is in this range.
      --product PRODUCT        Only this product (id or exact name).
      --limit N                Entries per page, 1-1000 (default 50).
      --offset N               Entries to skip (default 0).
      --json                   Print the page as JSON.
    """#,
    "cairn regimen export": #"""
    Export the whole log as CSV or JSON.

    Usage: cairn regimen export --format csv|json [--out FILE]

    Every entry, oldest first, corrected ones included, with UTC times and the zone each was logged in.

    Options:
      --format csv|json   The format.
      --out FILE          Write to FILE (created with owner-only access) instead of standard output.
    """#,
    "cairn regimen import": #"""
    Import past doses from a CSV file (another app's history).

    Usage: cairn regimen import FILE.csv [--json]

    The file needs a header row naming the columns date, time, time zone, product, amount, unit
    (optional) and status, in any order and any case. Example:

      date,time,time zone,product,amount,unit,status
      2026-03-01,08:00,Europe/Berlin,Vitamin D3,1,softgel,taken
      2026-03-01,21:30,Europe/Berlin,Magnesium,2,capsules,skipped

    time is HH:MM or HH:MM:SS on the wall clock of the time zone (an IANA name such as Europe/Berlin, or
    UTC). product is a product's name (ignoring case) or its id. status is taken or skipped.
    Amount and unit become servings of the product's label in force on that day: no unit or "servings"
    counts servings; capsules, tablets and other counts are divided by the units per serving; g, mg, mL
    and other masses or volumes are converted to the serving's unit and divided by it. An empty amount is
    one serving.

    Doses are added to the log as unscheduled entries with their own time and zone; schedules, Today and
    the count on hand are not changed. A file with any bad line imports nothing: every bad line is listed
    with its line number. Importing the same file again adds nothing; a newer export adds only its new
    lines, and a line whose status or amount changed is added as a correction (the history keeps both).

    Options:
      --json   Print the result of every line as JSON.
    """#,
    "cairn regimen exposure": #"""
    Sum what was taken per product and per ingredient, per day.

    Usage: cairn regimen exposure [--from DATE] [--to DATE] [--json]

    Only doses logged as taken count. Amounts of one ingredient add up when their units convert exactly;
    other units stay on their own line. Default range: the last 7 days up to today.

    Options:
      --from DATE, --to DATE   Only days in this range, YYYY-MM-DD (default: the last 7 days up to today).
      --json                   Print JSON.
    """#,
    "cairn regimen insights": #"""
    Compare outcome series before and after changes in what you took.

    Usage: cairn regimen insights [--json] [--full] [--search-onset METRIC] [--no-search-onset METRIC]

    Recomputes insights as of today (only what changed since the last run), stores them, and lists them
    grouped by change: changes with a qualified finding first, then by strength. A change is found only in
    doses logged as taken (a start with doses on at least 4 of its first 14 days, a pause of 3 or more
    scheduled days, stopping, a new dose, a new frequency or a new time of day); a single as-needed dose is
    not a change. For each change and each outcome series, the 14 days before and after are compared (28
    once 28 days have passed).

    A qualified finding needs at least 10 of 14 (20 of 28) days with a value on each side, a 95% interval
    that excludes zero (allowing for day-to-day carry-over and the weekly rhythm), an effect size |g| of
    at least 0.5, and p at most 0.04 at the 14-day look and 0.01 at the 28-day look, before and after
    adjusting for the number of series compared (the two looks share one 5% error rate). Each series is
    also checked at dates of its own where nothing changed: if differences there spread wider than the
    model expects, its comparisons are widened to match. Each insight lists which conditions held, and
    how often the method flagged those dates. "No clear difference" is said only when the interval rules
    out a shift of half the usual day-to-day spread; otherwise it reads "too little data to tell", with
    the days a shift of that size would need.

    Options:
      --json                     Print the insights as JSON, each with its change, metric, window, counts, interval, effect
                                 size, conditions, status, placebo check, limitations and disclaimer.
      --full                     Recompute everything, not only what changed since the last run.
      --search-onset METRIC      Also search a later onset (0-7 days after a change) for this series;
                                 the search is counted in its p-value.
      --no-search-onset METRIC   Use only the change day as the onset for this series again.
    """#,
    "cairn regimen report": #"""
    Write a PDF summary of a period: products, schedules, logged doses, ingredient totals, outcomes, insights.

    Usage: cairn regimen report --from YYYY-MM-DD --to YYYY-MM-DD [--no-insight-details] --out FILE [--paper a4|letter] [--force]

    The file is written on this computer and sent nowhere; where it goes next is up to you.

    Options:
      --from YYYY-MM-DD, --to YYYY-MM-DD   The first and last day of the period (local days, inclusive).
      --no-insight-details                 Leave out the appendix of insight figures (each insight's sentence and disclaimer stay).
      --out FILE                           The PDF to write (owner-only access, mode 0600). Nothing half-written is left if it fails.
      --paper a4|letter                    Paper size (default a4).
      --force                              Replace a file already at FILE (otherwise it is left alone and nothing is written).
    """#,
    "cairn regimen scan": #"""
    Read a Supplement Facts photo and print the proposed ingredients as JSON (nothing is saved).

    Usage: cairn regimen scan LABEL.jpg [--json] [--confirm --name NAME --form FORM [--brand TEXT] [--accept N]... [--leave-out N]... [--use-database N]... [--keep-read N]...]

    Reads the label with Tesseract on this machine and proposes each row: its number, name, catalogue match,
    amount, unit, %DV, form, blend membership, the word boxes it was read from, and flags with their reasons.
    Lines that are not ingredients (directions, warnings, an address, text below the panel) are left out and
    listed; lines seen but not read, and a panel that runs off the photo, are reported in "warnings".
    "layout" says how the panel was read (columns side by side, where the amounts were, dot leaders), and
    "linesNotRead" lists each line seen and not read with why: unreadable, barelyLegible, notAnIngredient, or
    notSupported (a food's nutrition panel of any country, or another language: declined, no rows). A panel in
    a large photo is cut from it at full resolution. The photo is used in memory only and is not kept. JSON is
    the only output format (--json is accepted for clarity).

    Options:
      --json             Print the proposal as JSON (the default).
      --confirm          Save the proposal as a product. Needs --name and --form. A flagged row is saved only once
                         you decide it: on a terminal, scan asks for each flagged row (accept, edit, leave out);
                         otherwise give --accept N or --leave-out N for each, or nothing is saved.
      --accept N         Save flagged row N as read, after checking it against the label (repeat per row; "2,5" works).
      --leave-out N      Do not save row N (repeat per row).
      --name NAME        The product's name.
      --form FORM        capsule, softgel, tablet, chewable, lozenge, gummy, powder, liquid, drops, spray,
                         packet or other.
      --brand TEXT       The brand, if any.
      --use-database N   Where the photo's barcode is in the label database and row N differs from it: save its amount and %DV.
      --keep-read N      Where row N differs from the label database: save it as read.
    """#,
    "cairn regimen labels": #"""
    The label database (DSLD, imported from its bulk file): import, search, add a product, teach a barcode.

    Usage: cairn regimen labels <command> [options]

    Commands:
      import   Build the label database from DSLD's bulk JSON file (replaces an earlier one once whole).
      status   Say when the label database was imported, from which file, and its size.
      remove   Remove the label database (barcodes you taught stay in the vault).
      search   Find labels by name or brand, or by the barcode in a photo.
      show     Print one label of the label database as JSON, its rows flagged as a scan's are.
      add      Add a product from a label of the label database (flagged rows need your decision).
      teach    Link a barcode to one of your products, so it finds that product next time.
    """#,
    "cairn regimen labels import": #"""
    Build the label database from DSLD's bulk JSON file (replaces an earlier one once whole).

    Usage: cairn regimen labels import FILE

    The label database is the NIH Office of Dietary Supplements' Dietary Supplement Label Database (DSLD,
    dsld.od.nih.gov), public domain. Download its bulk JSON file yourself (a zip) and import it: Cairn never
    fetches anything. It is kept beside the vault, outside it and its backups; barcodes you teach stay in the
    vault.

    FILE is the zip as downloaded (one JSON file per label, or one large JSON array) or the JSON in it. Labels are
    read one at a time; the new database replaces the old one only once it is whole, so a failed import changes
    nothing.
    """#,
    "cairn regimen labels status": #"""
    Say when the label database was imported, from which file, and its size.

    Usage: cairn regimen labels status [--json]

    The label database is the NIH Office of Dietary Supplements' Dietary Supplement Label Database (DSLD,
    dsld.od.nih.gov), public domain. Download its bulk JSON file yourself (a zip) and import it: Cairn never
    fetches anything. It is kept beside the vault, outside it and its backups; barcodes you teach stay in the
    vault.

    Options:
      --json   Print JSON.
    """#,
    "cairn regimen labels remove": #"""
    Remove the label database (barcodes you taught stay in the vault).

    Usage: cairn regimen labels remove

    The label database is the NIH Office of Dietary Supplements' Dietary Supplement Label Database (DSLD,
    dsld.od.nih.gov), public domain. Download its bulk JSON file yourself (a zip) and import it: Cairn never
    fetches anything. It is kept beside the vault, outside it and its backups; barcodes you teach stay in the
    vault.
    """#,
    "cairn regimen labels search": #"""
    Find labels by name or brand, or by the barcode in a photo.

    Usage: cairn regimen labels search TEXT | --barcode-photo FILE | --barcode NUMBER [--limit N] [--json]

    TEXT finds labels whose name or brand hold every word (each as a word's start). A barcode is compared as a
    GTIN-14 (a UPC-A read as EAN-13 is the same barcode); it finds your own product first when you taught it
    (labels teach), then the labels that carry it. The photo is read in memory and never kept.

    The label database is the NIH Office of Dietary Supplements' Dietary Supplement Label Database (DSLD,
    dsld.od.nih.gov), public domain. Download its bulk JSON file yourself (a zip) and import it: Cairn never
    fetches anything. It is kept beside the vault, outside it and its backups; barcodes you teach stay in the
    vault.

    Options:
      --barcode-photo FILE   A photo of the product's barcode (or its label with the barcode).
      --barcode NUMBER       A barcode number (8, 12, 13 or 14 digits).
      --limit N              At most N labels (1 to 100; 20 by default).
      --json                 Print JSON.
    """#,
    "cairn regimen labels show": #"""
    Print one label of the label database as JSON, its rows flagged as a scan's are.

    Usage: cairn regimen labels show ID
    """#,
    "cairn regimen labels add": #"""
    Add a product from a label of the label database (flagged rows need your decision).

    Usage: cairn regimen labels add ID [--name NAME] [--brand TEXT] [--form FORM] [--accept N] [--leave-out N]

    The label's rows are checked as a scanned label's are. A flagged row is saved only once you decide it: on a
    terminal, add asks for each; otherwise give --accept N or --leave-out N for each, or nothing is saved. The
    name, brand and form default to the label's.

    Options:
      --name NAME     The product's name (the label's by default).
      --brand TEXT    The brand (the label's by default).
      --form FORM     capsule, softgel, tablet, chewable, lozenge, gummy, powder, liquid, drops, spray,
                      packet or other.
      --accept N      Save flagged row N as read, after checking it against the label (repeat per row; "2,5" works).
      --leave-out N   Do not save row N (repeat per row).
    """#,
    "cairn regimen labels teach": #"""
    Link a barcode to one of your products, so it finds that product next time.

    Usage: cairn regimen labels teach BARCODE PRODUCT | --barcode-photo FILE PRODUCT

    The link is kept in your vault (the label database is not changed). The photo is read in memory and never
    kept.

    Options:
      --barcode-photo FILE   A photo of the product's barcode (or its label with the barcode).
    """#,
    "cairn regimen supply": #"""
    Counts on hand and when they run out.

    Usage: cairn regimen supply <command> [options]

    Commands:
      set    Set how many units (or servings) of a product are on hand.
      list   List counts on hand and when each runs out.
    """#,
    "cairn regimen supply set": #"""
    Set how many units (or servings) of a product are on hand.

    Usage: cairn regimen supply set PRODUCT COUNT

    COUNT is in units (capsules, tablets, ...) when a serving is a count, else in servings. Each dose
    logged as taken counts it down.
    """#,
    "cairn regimen supply list": #"""
    List counts on hand and when each runs out.

    Usage: cairn regimen supply list [--json]

    Options:
      --json   Print JSON.
    """#,
    "cairn regimen outcomes": #"""
    Outcome series: daily ratings and other values you track.

    Usage: cairn regimen outcomes <command> [options]

    Commands:
      add             Log one value of a metric for a day (today by default).
      correct         Correct a logged value: a new entry replaces it, and the history keeps both.
      import          Import outcome values from a CSV file (date, metric, value), or a health export.
      list            List logged values, newest day first, or one value per day with --daily.
      metrics         List the metrics: built-in ratings, health export metrics and your own.
      define          Add a metric of your own (for example a 1-5 headache rating).
      import-health   Import an Apple Health or Health Connect export, read-only.
    """#,
    "cairn regimen outcomes add": #"""
    Log one value of a metric for a day (today by default).

    Usage: cairn regimen outcomes add METRIC VALUE [--date YYYY-MM-DD] [--note TEXT] [--json]

    METRIC is a metric id from 'cairn regimen outcomes metrics' (sleep_quality, energy, skin, mood, or one
    of your own). Several values on one day are combined by the metric's daily rule (mean, sum or last).

    Options:
      --date YYYY-MM-DD   The day the value belongs to (default: today).
      --note TEXT         A note kept with the value.
      --json              Print the saved entry as JSON.
    """#,
    "cairn regimen outcomes correct": #"""
    Correct a logged value: a new entry replaces it, and the history keeps both.

    Usage: cairn regimen outcomes correct ENTRY-ID VALUE [--note TEXT]

    ENTRY-ID comes from 'cairn regimen outcomes list'.

    Options:
      --note TEXT   A new note (default: the old entry's note).
    """#,
    "cairn regimen outcomes import": #"""
    Import outcome values from a CSV file (date, metric, value), or a health export.

    Usage: cairn regimen outcomes import FILE.csv|export.zip|export.xml [--json]

    The file needs a header row naming the columns date, metric and value (any order, any case), and may
    have a note column. Dates are YYYY-MM-DD; metrics are ids or names from 'cairn regimen outcomes metrics';
    values use a dot for decimals. Example:

      date,metric,value,note
      2026-03-01,sleep_quality,4,
      2026-03-01,energy,3.5,after a long walk

    A file with any bad line imports nothing: every bad line is listed with its line number. Importing
    the same file again adds nothing; a newer file adds its new lines, and a changed value replaces the
    one imported before (both stay in the history). Health metrics come only from a health export: a FILE
    ending in .zip or .xml (Apple Health's export.zip or export.xml, or Health Connect's zip) is read as
    one, exactly as 'cairn regimen outcomes import-health' does.

    Options:
      --json   Print the result of every line as JSON.
    """#,
    "cairn regimen outcomes list": #"""
    List logged values, newest day first, or one value per day with --daily.

    Usage: cairn regimen outcomes list [--metric METRIC] [--from DATE] [--to DATE] [--daily] [--json]

    Options:
      --metric METRIC          Only this metric (its id).
      --from DATE, --to DATE   Only days in this range (YYYY-MM-DD).
      --daily                  One value per metric and day, combined by the metric's daily rule
                               (Apple Health metrics included once a Health export is imported).
      --json                   Print JSON.
    """#,
    "cairn regimen outcomes metrics": #"""
    List the metrics: built-in ratings, health export metrics and your own.

    Usage: cairn regimen outcomes metrics [--json]

    Options:
      --json   Print the definitions as JSON.
    """#,
    "cairn regimen outcomes define": #"""
    Add a metric of your own (for example a 1-5 headache rating).

    Usage: cairn regimen outcomes define ID NAME [--unit UNIT] [--min N] [--max N] [--daily mean|sum|last]

    ID is 1 to 40 lower-case letters, digits or underscores, starting with a letter. A metric cannot be
    changed once defined.

    Options:
      --unit UNIT             The unit shown with values (default 1-5).
      --min N, --max N        The values accepted (default 1 and 5).
      --daily mean|sum|last   How several values on one day combine (default mean).
    """#,
    "cairn regimen outcomes import-health": #"""
    Import an Apple Health or Health Connect export, read-only.

    Usage: cairn regimen outcomes import-health FILE [--json]

    FILE is the export.zip from the iPhone Health app's 'Export All Health Data' (or the export.xml inside
    it), or the zip Android's Health Connect export writes (holding health_connect_export.db); which one is
    told from the file, not its name. An Apple export is read as a stream, so several gigabytes are fine;
    Health Connect's database is unpacked for the read into a private file in Cairn's data folder and
    removed after. Progress is shown on stderr for large files. Cairn keeps steps, sleep, resting heart
    rate, body mass, blood pressure, heart rate variability (SDNN, Apple) and heart rate (Health Connect),
    and counts the other record types it skips. Records with impossible values (negative steps, a heart
    rate of 0, ...) are left out and counted. Importing a newer export later adds only the records not
    already stored. An import that fails (a truncated file, say) keeps nothing. Cairn never writes health
    data back.

    Options:
      --json   Print the summary as JSON.
    """#,
    "cairn settings": #"""
    Vault-wide settings: the lock, and deleting all data.

    Usage: cairn settings <command> [options]

    Commands:
      lock              Turn the passphrase lock (database and photos encrypted) on or off, or change the passphrase.
      delete-all-data   Remove every record and photo in the vault. Cannot be undone.
    """#,
    "cairn settings lock": #"""
    Turn the passphrase lock (database and photos encrypted) on or off, or change the passphrase.

    Usage: cairn settings lock on|off|change|not-now [--passphrase-file FILE] [--passphrase-fd N] [--new-passphrase-file FILE]

    on      Choose a passphrase; the database and every photo are encrypted in place (a crash leaves the old
            vault or the new one, never neither). Every later command asks for the passphrase.
    off     The database and photos are decrypted in place; the vault opens without a passphrase again.
    change  A new passphrase for the same key: nothing else changes.
    not-now Cairn stops asking: once a vault holds records and never had a lock, a command that changed
            data says so at a terminal (never in a script) until the lock is turned on or this is said.
    If you forget the passphrase, the data cannot be recovered: nobody can do it, Cairn neither.
    The passphrase is typed at the terminal (not shown) or read from a file; never from an argument.

    Options:
      --passphrase-file FILE       Read the passphrase from the first line of FILE.
      --passphrase-fd N            Read the passphrase from the first line of file descriptor N.
      --new-passphrase-file FILE   Read the new passphrase from the first line of FILE.
    """#,
    "cairn settings delete-all-data": #"""
    Remove every record and photo in the vault. Cannot be undone.

    Usage: cairn settings delete-all-data --yes

    Removes everything Cairn keeps in this vault and leaves an empty vault:
      - every skin area, photo, comparison and note
      - every smile photo
      - every product (with its label details and the barcodes you linked to it), schedule, and dose taken, skipped or imported
      - every supply change
      - every outcome series and its entries
      - all Apple Health data you imported
      - every insight
      - your settings, your reminder settings, the record of reminders sent and the reminder timetable
      - the database's journal and WAL files, the label database you imported, and any temporary files Cairn left in the vault
    There is no undo. Backups, reports and exports you saved elsewhere are not touched. --yes confirms that you mean it.

    Options:
      --yes   Confirm that everything is to be deleted.
    """#,
    "cairn backup": #"""
    Encrypted backups of the vault, checked before they count.

    Usage: cairn backup <command> [options]

    Commands:
      create    Write an encrypted backup of the whole vault and check that it restores.
      verify    Decrypt a backup completely and check every file against its manifest.
      restore   Restore a backup into a new, empty vault folder.
    """#,
    "cairn backup create": #"""
    Write an encrypted backup of the whole vault and check that it restores.

    Usage: cairn backup create FILE|FOLDER [--keep N] [--passphrase-file FILE] [--passphrase-fd N]

    Writes the database (a consistent snapshot, also while cairn serve runs) and every photo into one file,
    encrypted with a backup passphrase, owner-only. Before it says done, it decrypts the whole file again and
    compares every SHA-256 with the backup's manifest. With a FOLDER, the file is named by the date.
    If you forget the passphrase, the backup cannot be opened: nobody can recover it.

    Options:
      --keep N                 With a FOLDER: keep this vault's newest N backups there, remove older ones.
      --passphrase-file FILE   Read the passphrase from the first line of FILE.
      --passphrase-fd N        Read the passphrase from the first line of file descriptor N.
    """#,
    "cairn backup verify": #"""
    Decrypt a backup completely and check every file against its manifest.

    Usage: cairn backup verify FILE [--passphrase-file FILE] [--passphrase-fd N]

    Options:
      --passphrase-file FILE   Read the passphrase from the first line of FILE.
      --passphrase-fd N        Read the passphrase from the first line of file descriptor N.
    """#,
    "cairn backup restore": #"""
    Restore a backup into a new, empty vault folder.

    Usage: cairn backup restore FILE --data-dir DIR [--passphrase-file FILE] [--passphrase-fd N]

    DIR (the global --data-dir, required here) must be missing or empty: a restore never replaces a vault.
    Everything is written beside it, checked (every SHA-256, then the database's integrity), and only then
    moved into place; if anything fails, DIR is left as it was.

    Options:
      --passphrase-file FILE   Read the passphrase from the first line of FILE.
      --passphrase-fd N        Read the passphrase from the first line of file descriptor N.
    """#,
    "cairn remind": #"""
    Show dose reminders as desktop notifications, with Taken, Skip and Snooze.

    Usage: cairn remind [--once] | --install | --uninstall

    Runs until stopped (Ctrl+C), checking every 30 seconds. 'cairn serve' runs the same reminders, so
    you need this only to get reminders without the app open. A dose logged anywhere (page, CLI or a
    notification) is not reminded again. The text is discreet unless product names are turned on
    ('cairn regimen reminders set --names on'). On a locked vault it needs no passphrase: it reminds from
    the timetable, without names, and what is pressed is logged at the next unlock.

    Options:
      --once        Check once, show what is due, and exit.
      --install     Write a systemd user service that runs 'cairn remind' at login.
      --uninstall   Remove that service.
    """#,
    "cairn regimen undo": #"""
    Undo a log entry: the dose is back to not logged, and the history keeps both entries.

    Usage: cairn regimen undo RECORD-ID [--json]

    RECORD-ID comes from 'cairn regimen ledger' or from the message of 'take' and 'skip' (any unique start
    of it, 4 characters or more).

    Options:
      --json   Print JSON.
    """#,
    "cairn regimen reminders": #"""
    Reminder preferences: quiet hours, names, repeats, summaries, per schedule, skin photos.

    Usage: cairn regimen reminders <command> [options]

    Commands:
      show       Show the reminder preferences in force today, the schedules with reminders off and the skin photo reminders.
      set        Change reminder preferences from a day on (earlier days keep theirs).
      schedule   Turn the reminders of one schedule on or off from a day on.
      area       Remind to photograph a skin area again every N weeks after its newest photo (off by default).
    """#,
    "cairn regimen reminders show": #"""
    Show the reminder preferences in force today, the schedules with reminders off and the skin photo reminders.

    Usage: cairn regimen reminders show
    """#,
    "cairn regimen reminders area": #"""
    Remind to photograph a skin area again every N weeks after its newest photo (off by default).

    Usage: cairn regimen reminders area AREA WEEKS|off [--from DATE]

    AREA is the area's name or id. The reminder comes once each time the area is due, at the first check after 07:00.

    Options:
      --from DATE   The first day the change is in force, YYYY-MM-DD (default today).
    """#,
    "cairn regimen reminders set": #"""
    Change reminder preferences from a day on (earlier days keep theirs).

    Usage: cairn regimen reminders set [--quiet HH:MM-HH:MM|off] [--names on|off] [--repeat MINUTES] [--repeat-limit N] [--summary on|off] [--refill-days N] [--from DATE]

    Options not given keep their current value.

    Options:
      --quiet HH:MM-HH:MM|off   Quiet hours: no notification in this span (it may cross midnight).
      --names on|off            Name the products and skin areas in the text (default off).
      --repeat MINUTES          Remind again every MINUTES until logged, 0-720 (0: no repeat).
      --repeat-limit N          At most N repeats of one dose, 0-20 (default 3).
      --summary on|off          A morning summary of yesterday's unlogged doses (default on).
      --refill-days N           Warn at N days of supply left, 0-90 (0: off; default 7).
      --from DATE               The first day the change is in force, YYYY-MM-DD (default today).
    """#,
    "cairn regimen reminders schedule": #"""
    Turn the reminders of one schedule on or off from a day on.

    Usage: cairn regimen reminders schedule SCHEDULE on|off [--from DATE]

    Options:
      --from DATE   The first day the change is in force, YYYY-MM-DD (default today).
    """#,
]

/// Every command path of the tree, groups included (`[]` is the top level).
private func paths(_ entries: [CommandEntry], under prefix: [String] = []) -> [[String]] {
    entries.flatMap { entry -> [[String]] in
        switch entry {
        case .command: return [prefix + [entry.name]]
        case .group(let group): return [prefix + [group.name]] + paths(group.children, under: prefix + [group.name])
        }
    }
}

@Test func everyHelpTextIsExactlyAsWritten() {
    let all = [[]] + paths(CairnCommandLine.commands)
    for path in all {
        let key = (["cairn"] + path).joined(separator: " ")
        let run = cairn(path + ["--help"])
        #expect(run.status == 0, "\(key) --help exits 0")
        #expect(run.err.isEmpty)
        guard let expected = expectedHelp[key] else {
            Issue.record("\(key) has no expected help text here")
            continue
        }
        #expect(run.stdout == expected, "\(key) --help")
    }
    let keys = Set(all.map { (["cairn"] + $0).joined(separator: " ") })
    #expect(Set(expectedHelp.keys).subtracting(keys).isEmpty, "help texts of commands that no longer exist")
}
