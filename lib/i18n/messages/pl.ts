/** Polish. */
import type { Catalogue } from "./en.ts";

export const pl: Catalogue = {
  "doc.footer": "Poczekalnia Tollgate",
  "doc.how": "Jak to działa",
  "doc.language": "Język",
  "doc.languageNow": "Język: {name}",
  "page.title": "Jesteś w kolejce",
  "page.message": "Dziękujemy za cierpliwość. Wpuścimy Cię, gdy tylko zwolni się miejsce.",
  "page.turnTitle": "✅ Twoja kolej — {title}",
  "page.previewTitle": "Podgląd — {title}",
  "page.moveTitle": "Przenieść tu swoje miejsce? — {title}",
  "page.movedTitle": "Twoje miejsce zostało przeniesione — {title}",
  "page.endedTitle": "Twoje miejsce wygasło — {title}",
  "live.expired":
    "Twoja kolej minęła: miejsce było dla Ciebie zarezerwowane, ale nie wszedłeś na czas.",
  "live.ended":
    "Twoje miejsce w kolejce wygasło: opuściłeś kolejkę, miejsce usunięto z powodu braku odpowiedzi albo Twoja kolej minęła.",
  "live.full": "Poczekalnia jest teraz pełna. Ta strona za chwilę sama spróbuje ponownie.",
  "live.closed": "Ta poczekalnia jest niedostępna.",
  "live.cookies":
    "Ta strona nie może tu zachować Twojego miejsca, bo przeglądarka nie przechowuje ciasteczka poczekalni w tej ramce. Otwórz poczekalnię w osobnym oknie, aby czekać.",
  "live.hold":
    "Twoja kolej! Twoje miejsce jest zarezerwowane jeszcze przez {time}: naciśnij „Wejdź teraz”.",
  "live.admitted": "Twoja kolej! Wpuszczamy Cię…",
  "live.prequeue":
    "Jesteś w kolejce wstępnej. Ta strona sprawdza za Ciebie i sama przejdzie dalej.",
  "live.lottery":
    "Bierzesz udział w losowaniu. Ta strona sprawdza za Ciebie i sama przejdzie dalej.",
  "live.position":
    "Jesteś numerem {position} w kolejce. Ta strona sprawdza za Ciebie i sama przejdzie dalej.",
  "live.positionOf":
    "Jesteś numerem {position} z {waiting} w kolejce. Ta strona sprawdza za Ciebie i sama przejdzie dalej.",
  "live.positionAbout":
    "Jesteś mniej więcej numerem {position} w kolejce. Ta strona sprawdza za Ciebie i sama przejdzie dalej.",
  "wait.joinAgain": "Stań w kolejce ponownie",
  "wait.ownWindow": "Otwórz poczekalnię w osobnym oknie",
  "wait.enterNow": "Wejdź teraz",
  "wait.continue": "Dalej",
  "wait.heldFor": "Twoje miejsce jest zarezerwowane jeszcze przez {countdown}.",
  "wait.notifyMe": "Powiadom mnie",
  "wait.notifyOn": "Powiadomimy Cię, gdy przyjdzie Twoja kolej.",
  "wait.notifyBlocked":
    "Powiadomienia są zablokowane dla tej witryny, więc nie możemy Cię powiadomić. Nie zamykaj tej strony: sama przejdzie dalej.",
  "wait.arrivalWas": "Twój numer przybycia w kolejce wstępnej to {arrival}.",
  "wait.checkDraw": "Sprawdź losowanie otwarcia",
  "wait.howYouGetIn": "Jak wejdziesz",
  "wait.prequeueWords":
    "W chwili otwarcia każdy w kolejce wstępnej dostaje losowe miejsce w kolejce, przed wszystkimi, którzy przyjdą później. To, kiedy dołączyłeś do kolejki wstępnej, nie ma znaczenia.",
  "wait.lotteryWords":
    "Za każdym razem, gdy zwalnia się miejsce, losowanie wybiera, kto wchodzi, spośród wszystkich czekających w tej chwili. Nie ma miejsca w kolejce: wcześniejsze czy późniejsze przybycie nie ma znaczenia.",
  "wait.arrivalNumber":
    "Twój numer przybycia: {arrival} (zachowaj go, aby znaleźć swoje miejsce w opublikowanym losowaniu)",
  "wait.commitment":
    "Sekret losowania ustalono, zanim ktokolwiek dołączył; jego odcisk to {fingerprint}.",
  "wait.howToCheck": "Jak sprawdzić losowanie",
  "wait.openingProgress": "Oczekiwanie na losowanie otwarcia",
  "wait.prequeueEta": "Przewidywany czas oczekiwania po otwarciu, dla losowego miejsca: {wait}",
  "wait.odds": "Czekających: {waiting} · Twoja szansa w następnym losowaniu: {chance}",
  "wait.drawProgress": "Oczekiwanie na losowanie",
  "wait.lotteryEta":
    "W obecnym tempie czas oczekiwania dla połowy czekających: {half}, dla dziewięciu na dziesięć: {most}.",
  "wait.placeLabel": "Twoje miejsce w kolejce",
  "wait.place": "Nr {position}",
  "wait.placeOf": "Nr {position} z {waiting}",
  "wait.placeAbout": "Około nr {position}",
  "wait.codeOffer": "Masz kod pierwszeństwa?",
  "wait.codeLabel": "Kod pierwszeństwa",
  "wait.codeUse": "Użyj kodu",
  "wait.inLane": "Kolejka priorytetowa: {lane}",
  "wait.lineProgress": "Postęp w kolejce",
  "wait.eta": "Szacowany czas oczekiwania: {wait}",
  "time.unknown": "nieznany",
  "time.underMinute": "mniej niż minuta",
  "time.about": "mniej więcej {duration}",
  "time.overDay": "ponad dzień",
  "time.under": "mniej niż {value}",
  "notify.title": "Twoja kolej",
  "resume.offer": "Kontynuuj na innym urządzeniu",
  "resume.offerHint":
    "Otwórz tę poczekalnię na telefonie lub innym komputerze i zachowaj swoje miejsce.",
  "resume.showCode": "Pokaż kod",
  "resume.codeLabel": "Twój kod",
  "resume.codeHint":
    "Na drugim urządzeniu zeskanuj kod QR, otwórz link albo wpisz kod w sekcji „{offer}” na stronie tej poczekalni. Kod działa raz; potem Twoje miejsce przechodzi tam.",
  "resume.link": "Link: {link}",
  "resume.copyLink": "Kopiuj link",
  "resume.copied": "Skopiowano",
  "resume.qrLabel": "Kod QR, który otwiera Twoje miejsce na innym urządzeniu",
  "resume.moved":
    "Twoje miejsce przeszło na inne urządzenie. Aby je odzyskać, wpisz kod pokazany na tamtym urządzeniu.",
  "resume.haveCode": "Masz kod z innego urządzenia?",
  "resume.enterCode": "Wpisz kod",
  "resume.takePlace": "Kontynuuj tutaj",
  "resume.confirmMove":
    "Przenieść Twoje miejsce w kolejce na to urządzenie? Drugie urządzenie je straci.",
  "resume.badCode":
    "Ten kod nie działa: jest błędnie wpisany, został już użyty albo jego miejsce wygasło.",
  "resume.tooMany": "Za dużo błędnych kodów. Odczekaj kilka minut i spróbuj ponownie.",
  "resume.mailOffer": "Wyślij mi e-mail, gdy przyjdzie moja kolej",
  "resume.mailLabel": "Twój adres e-mail",
  "resume.mailSave": "Powiadom mnie e-mailem",
  "resume.mailSaved":
    "Wyślemy Ci e-mail, gdy przyjdzie Twoja kolej. Adres zostanie usunięty, gdy e-mail zostanie wysłany lub Twoje miejsce wygaśnie.",
  "resume.mailBad": "To nie wygląda na adres e-mail.",
  "resume.mailError": "Nie udało się teraz zapisać adresu. Spróbuj ponownie za chwilę.",
  "resume.mailCancel": "Nie wysyłaj mi e-maila",
  "resume.holdWarning":
    "Twoje zarezerwowane miejsce wkrótce wygaśnie. Potrzebujesz więcej czasu? Naciśnij „{button}”.",
  "resume.moreTime": "Potrzebuję więcej czasu",
  "resume.moreTimeAdded": "Dodano więcej czasu.",
  "resume.noMoreTime": "Nie można już dodać więcej czasu.",
  "mail.subjectTurn": "Twoja kolej: {title}",
  "mail.subjectNear": "Zaraz Twoja kolej: {title}",
  "mail.leadTurn": "Twoja kolej: możesz teraz wejść.",
  "mail.leadNear": "Jesteś wśród pierwszych {count} osób w kolejce.",
  "mail.linkIntro":
    "Otwórz ten link na tym urządzeniu, aby kontynuować w poczekalni (Twoje miejsce przejdzie tutaj):",
  "mail.code": "Albo wpisz ten kod na stronie poczekalni: {code}",
  "mail.ignore": "Jeśli nie prosiłeś o ten e-mail, możesz go zignorować.",
  "check.title": "Chwileczkę — {title}",
  "check.noscript":
    "Zanim staniesz w kolejce, ta strona sprawdza, czy jesteś człowiekiem, a nie skryptem. Sprawdzenie wymaga JavaScriptu: włącz go i odśwież tę stronę.",
  "check.checking": "Sprawdzamy, czy jesteś człowiekiem, a nie skryptem…",
  "check.progress":
    "Sprawdzamy, czy jesteś człowiekiem, a nie skryptem… ukończono około {percent}.",
  "check.done": "Sprawdzanie zakończone. Dołączamy Cię do kolejki…",
  "check.doneResume": "Sprawdzanie zakończone. Przenosimy tu Twoje miejsce…",
  "check.again": "Jeszcze jedno sprawdzenie…",
  "check.failed":
    "Sprawdzenie się nie powiodło ({reason}). Odśwież stronę, aby spróbować ponownie.",
  "check.reload": "Odśwież",
  "check.progressLabel": "Postęp sprawdzania",
  "check.errCookies":
    "przeglądarka nie przechowuje ciasteczka poczekalni w tej ramce; otwórz poczekalnię w osobnym oknie",
  "check.errWidget": "nie udało się wczytać sprawdzenia Turnstile",
  "check.errStatus": "poczekalnia odpowiedziała {status}",
  "notice.badRequest": "Nieprawidłowe żądanie",
  "notice.badQueueLink": "Nazwa kolejki w tym linku jest nieprawidłowa.",
  "notice.badQueueForm": "Nazwa kolejki w tym formularzu jest nieprawidłowa.",
  "notice.denied": "Odmowa dostępu",
  "notice.deniedText": "Nie możesz dołączyć do tej poczekalni.",
  "notice.badLink": "Coś jest nie tak z tym linkiem",
  "notice.badLinkText":
    "Tego linku do poczekalni nie można użyć. Wróć na stronę i ponownie kliknij jej link.",
  "notice.moment": "Proszę chwilę poczekać",
  "notice.momentText":
    "Poczekalnia nie mogła teraz odpowiedzieć. Ta strona sama spróbuje ponownie za {seconds}.",
  "notice.geo": "Niedostępne w Twoim kraju",
  "notice.geoText": "Ta poczekalnia jest niedostępna w Twoim kraju.",
  "notice.code": "Tego kodu pierwszeństwa nie można użyć",
  "notice.codeText":
    "Nie dotyczy tej kolejki, wygasł lub został już wykorzystany. Możesz dołączyć do kolejki bez niego.",
  "notice.notFound": "Nie znaleziono",
  "notice.visitEnded": "Twoja wizyta się zakończyła",
  "notice.visitEndedText":
    "Dziękujemy za wizytę: witryna ją zakończyła. Aby wejść ponownie, stań znowu w kolejce (na końcu).",
  "notice.notFoundText": "Tu nie ma żadnej poczekalni.",
  "notice.notOpen": "Jeszcze nie otwarte",
  "notice.notOpenText":
    "Ta poczekalnia nie jest jeszcze otwarta. Ta strona sama sprawdza ponownie co minutę.",
  "notice.rate": "Za dużo nowych miejsc z Twojej sieci",
  "notice.rateText":
    "W ostatniej minucie do tej poczekalni dołączyło wiele osób z Twojej sieci. Ta strona sama spróbuje ponownie za {seconds}.",
  "notice.closed": "W tej chwili zamknięte",
  "notice.closedText":
    "Ta poczekalnia jest w tej chwili zamknięta. Wróć później; ta strona sama sprawdzi ponownie.",
  "notice.full": "Poczekalnia jest pełna",
  "notice.fullText":
    "W tej chwili czeka zbyt wiele osób. Ta strona sama spróbuje ponownie za {seconds}.",
  "enqueue.unavailable": "Chwilowo niedostępne",
  "enqueue.unavailableText": "Ta poczekalnia nie może teraz sprawdzić swoich linków.",
  "enqueue.useLink": "Użyj linku ze strony",
  "enqueue.required":
    "Do tej poczekalni dołącza się przez osobisty link ze strony, która Cię tu skierowała. Wróć na stronę i kliknij jej link do kolejki.",
  "enqueue.invalid":
    "Link, który Cię tu przyprowadził, jest nieprawidłowy (mógł wygasnąć). Wróć na stronę i ponownie kliknij jej link do kolejki.",
  "how.title": "Jak działa ta poczekalnia",
  "how.intro":
    "Gdy przychodzi więcej osób, niż strona może obsłużyć naraz, dostajesz miejsce w kolejce zamiast strony błędu. Strona wpuszcza ludzi w stałym tempie.",
  "how.keepOpen":
    "Nie zamykaj strony oczekiwania: sama się zgłasza i przechodzi dalej, gdy przyjdzie Twoja kolej. Zamknięcie jej na dłużej oznacza utratę miejsca.",
  "how.reload":
    "Odświeżenie lub ponowne otwarcie strony zachowuje Twoje miejsce (pamięta je ciasteczko); nowe miejsce ustawiłoby Cię tylko na końcu.",
  "how.random":
    "Niektóre sprzedaże losują osoby zamiast obsługiwać je według kolejności przybycia; strona mówi, która zasada obowiązuje.",
  "how.turn":
    "Gdy przyjdzie Twoja kolej, przejdziesz na stronę. Jeśli strona poprosi o potwierdzenie, zrób to w pokazanym czasie, inaczej miejsce przejdzie na następną osobę.",
  "how.privacy":
    "Przechowujemy tylko to, czego potrzebuje kolejka: losowy identyfikator w ciasteczku oraz Twój adres i kraj, aby sprawiedliwie dzielić miejsca i zapobiegać nadużyciom.",
  "how.back": "Aby wrócić do kolejki, użyj przycisku Wstecz w przeglądarce.",
  "draw.title": "Sprawdź losowanie otwarcia",
  "draw.intro":
    "Ta strona przelicza w Twojej przeglądarce losowanie kolejki {queue}: ziarno musi dawać skrót opublikowanego zobowiązania z chwili otwarcia kolejki wstępnej, lista musi dawać opublikowany skrót listy, a kolejność musi wynikać z ziarna i listy. Nic tu nie polega na odpowiedzi serwera.",
  "draw.fetch": "Sprawdź opublikowane losowanie",
  "draw.paste": "Albo wklej zapisany rekord",
  "draw.recordLabel": "Rekord losowania (JSON)",
  "draw.checkRecord": "Sprawdź ten rekord",
  "draw.arrivalLabel": "Twój numer przybycia",
  "draw.noscript": "To sprawdzenie działa w przeglądarce: wymaga JavaScriptu.",
  "draw.checking": "Sprawdzanie…",
  "draw.ok": "Losowanie się zgadza: {count} na liście, kolejność przeliczona.",
  "draw.bad": "Losowanie się NIE zgadza (zobacz niżej).",
  "draw.notInList": "Numeru przybycia {arrival} nie ma na liście.",
  "draw.placed": "Numer przybycia {arrival} wylosował miejsce {place} z {total}.",
  "draw.serverSaid": "Serwer odpowiedział {status}.",
  "draw.fetchFailed": "Nie udało się pobrać rekordu losowania.",
  "draw.notJson": "To nie jest rekord losowania w formacie JSON.",
  "gateway.title": "Chwilowo niedostępne",
  "gateway.heading": "Ta strona jest teraz nieosiągalna",
  "gateway.text": "Twój dostęp pozostaje ważny: spróbuj ponownie za chwilę.",
  "gateway.retry": "Spróbuj ponownie",
  "draw.lineScheme": "schemat to {scheme} (rekord podaje {said})",
  "draw.lineNotDone":
    "rekord nie ma jeszcze ziarna, listy ani kolejności: losowanie się nie odbyło",
  "draw.lineSeed": "ziarno to 32 bajty w szesnastkowym zapisie małymi literami",
  "draw.lineCommitment": "SHA-256(ziarno) jest równe zobowiązaniu {commitment} opublikowanemu {at}",
  "draw.lineList": "SHA-256 listy {count} numerów przybycia to listHash",
  "draw.lineCount": "count zgadza się z długością listy",
  "draw.lineOrder": "kolejność przeliczona z ziarna i listy jest równa opublikowanej",
};
