/** Turkish. */
import type { Catalogue } from "./en.ts";

export const tr: Catalogue = {
  "doc.footer": "Bekleme odası: Tollgate",
  "doc.how": "Nasıl çalışır",
  "doc.language": "Dil",
  "doc.languageNow": "Dil: {name}",
  "page.title": "Sıradasınız",
  "page.message": "Sabrınız için teşekkürler. Yer açılır açılmaz sizi içeri alacağız.",
  "page.turnTitle": "✅ Sıra sizde — {title}",
  "page.previewTitle": "Önizleme — {title}",
  "page.moveTitle": "Yeriniz buraya taşınsın mı? — {title}",
  "page.movedTitle": "Yeriniz taşındı — {title}",
  "page.endedTitle": "Yerinizin süresi doldu — {title}",
  "live.expired": "Sıranız geçti: yeriniz sizin için ayrıldı, ancak zamanında girmediniz.",
  "live.ended":
    "Sıradaki yeriniz sona erdi: sıradan ayrıldınız, yanıt vermediğiniz için yeriniz silindi ya da sıranız geçti.",
  "live.full": "Bekleme odası şu anda dolu. Bu sayfa birazdan kendiliğinden yeniden deneyecek.",
  "live.closed": "Bu bekleme odası kullanılamıyor.",
  "live.cookies":
    "Tarayıcı bu çerçevede bekleme odasının çerezini saklamadığı için bu sayfa yerinizi burada tutamıyor. Beklemek için bekleme odasını kendi penceresinde açın.",
  "live.hold": "Sıra sizde! Yeriniz {time} boyunca ayrıldı: “Şimdi gir” düğmesine basın.",
  "live.admitted": "Sıra sizde! İçeri alınıyorsunuz…",
  "live.prequeue": "Ön sıradasınız. Bu sayfa sizin için kontrol eder ve kendiliğinden ilerler.",
  "live.lottery":
    "Çekilişe katılıyorsunuz. Bu sayfa sizin için kontrol eder ve kendiliğinden ilerler.",
  "live.position":
    "Sırada {position}. sıradasınız. Bu sayfa sizin için kontrol eder ve kendiliğinden ilerler.",
  "live.positionOf":
    "Sırada {waiting} kişi içinde {position}. sıradasınız. Bu sayfa sizin için kontrol eder ve kendiliğinden ilerler.",
  "live.positionAbout":
    "Sırada yaklaşık {position}. sıradasınız. Bu sayfa sizin için kontrol eder ve kendiliğinden ilerler.",
  "wait.joinAgain": "Yeniden sıraya gir",
  "wait.ownWindow": "Bekleme odasını kendi penceresinde aç",
  "wait.enterNow": "Şimdi gir",
  "wait.continue": "Devam",
  "wait.heldFor": "Yeriniz {countdown} boyunca ayrıldı.",
  "wait.notifyMe": "Bana haber ver",
  "wait.notifyOn": "Sıra size geldiğinde size haber vereceğiz.",
  "wait.notifyBlocked":
    "Bu site için bildirimler engellendiğinden size haber veremiyoruz. Bu sayfayı açık tutun: kendiliğinden ilerler.",
  "wait.arrivalWas": "Ön sıradaki geliş numaranız {arrival} idi.",
  "wait.checkDraw": "Açılış çekilişini kontrol et",
  "wait.howYouGetIn": "Nasıl girersiniz",
  "wait.prequeueWords":
    "Açılışta ön sıradaki herkes, daha sonra gelen herkesin önünde, rastgele bir sıra yeri alır. Ön sıraya ne zaman katıldığınızın bir önemi yoktur.",
  "wait.lotteryWords":
    "Her yer açıldığında, o anda bekleyen herkes arasından içeri kimin gireceğini rastgele bir çekiliş belirler. Sırada yer yoktur: erken ya da geç gelmek fark etmez.",
  "wait.arrivalNumber":
    "Geliş numaranız: {arrival} (yayımlanan çekilişte yerinizi bulmak için saklayın)",
  "wait.commitment":
    "Çekilişin gizli değeri kimse katılmadan önce belirlendi; parmak izi {fingerprint}.",
  "wait.howToCheck": "Çekiliş nasıl kontrol edilir",
  "wait.openingProgress": "Açılış çekilişi bekleniyor",
  "wait.prequeueEta": "Açılıştan sonra rastgele bir yer için beklenen süre: {wait}",
  "wait.odds": "{waiting} kişi bekliyor · sonraki çekilişte şansınız: {chance}",
  "wait.drawProgress": "Çekiliş bekleniyor",
  "wait.lotteryEta":
    "Mevcut hızla, şu an bekleyenlerin yarısı {half} içinde, onda dokuzu {most} içinde giriyor.",
  "wait.placeLabel": "Sıradaki yeriniz",
  "wait.place": "{position}. sıra",
  "wait.placeOf": "{waiting} kişi içinde {position}. sıra",
  "wait.placeAbout": "Yaklaşık {position}. sıra",
  "wait.codeOffer": "Öncelik kodunuz mu var?",
  "wait.codeLabel": "Öncelik kodu",
  "wait.codeUse": "Kodu kullan",
  "wait.inLane": "Öncelikli sıra: {lane}",
  "wait.lineProgress": "Sıradaki ilerleme",
  "wait.eta": "Tahmini bekleme: {wait}",
  "time.unknown": "bilinmiyor",
  "time.underMinute": "bir dakikadan az",
  "time.about": "yaklaşık {duration}",
  "time.overDay": "bir günden fazla",
  "time.under": "{value} altında",
  "notify.title": "Sıra sizde",
  "resume.offer": "Başka bir cihazda devam et",
  "resume.offerHint":
    "Bu bekleme odasını telefonunuzda veya başka bir bilgisayarda açın ve yerinizi koruyun.",
  "resume.showCode": "Kod göster",
  "resume.codeLabel": "Kodunuz",
  "resume.codeHint":
    "Diğer cihazda QR kodunu tarayın, bağlantıyı açın ya da kodu bu bekleme odasının sayfasında “{offer}” bölümüne girin. Kod bir kez çalışır; ardından yeriniz oraya geçer.",
  "resume.link": "Bağlantı: {link}",
  "resume.copyLink": "Bağlantıyı kopyala",
  "resume.copied": "Kopyalandı",
  "resume.qrLabel": "Yerinizi başka bir cihazda açan QR kodu",
  "resume.moved":
    "Yeriniz başka bir cihaza taşındı. Geri almak için orada gösterilen bir kodu girin.",
  "resume.haveCode": "Başka bir cihazdan aldığınız bir kod mu var?",
  "resume.enterCode": "Kodu girin",
  "resume.takePlace": "Burada devam et",
  "resume.confirmMove": "Sıradaki yeriniz bu cihaza taşınsın mı? Diğer cihaz yerini kaybedecek.",
  "resume.badCode":
    "Bu kod çalışmıyor: yanlış yazılmış, daha önce kullanılmış ya da yerinin süresi dolmuş.",
  "resume.tooMany": "Çok fazla yanlış kod girildi. Birkaç dakika bekleyip yeniden deneyin.",
  "resume.mailOffer": "Sıram geldiğinde bana e-posta gönder",
  "resume.mailLabel": "E-posta adresiniz",
  "resume.mailSave": "E-postayla haber ver",
  "resume.mailSaved":
    "Sıranız geldiğinde size e-posta göndereceğiz. Adres, e-posta gönderilince ya da yeriniz sona erince silinir.",
  "resume.mailBad": "Bu bir e-posta adresine benzemiyor.",
  "resume.mailError": "Adres şu anda kaydedilemedi. Birazdan yeniden deneyin.",
  "resume.mailCancel": "Bana e-posta gönderme",
  "resume.holdWarning":
    "Ayrılan yeriniz yakında sona erecek. Daha fazla süre mi gerekiyor? “{button}” düğmesine basın.",
  "resume.moreTime": "Daha fazla süreye ihtiyacım var",
  "resume.moreTimeAdded": "Ek süre eklendi.",
  "resume.noMoreTime": "Daha fazla süre eklenemez.",
  "mail.subjectTurn": "Sıra sizde: {title}",
  "mail.subjectNear": "Sıranız yaklaştı: {title}",
  "mail.leadTurn": "Sıra sizde: şimdi girebilirsiniz.",
  "mail.leadNear": "Sıradaki ilk {count} kişi arasındasınız.",
  "mail.linkIntro":
    "Bekleme odasında devam etmek için bu bağlantıyı bu cihazda açın (yeriniz buraya geçer):",
  "mail.code": "Ya da bu kodu bekleme odasının sayfasında girin: {code}",
  "mail.ignore": "Bu e-postayı siz istemediyseniz dikkate almayabilirsiniz.",
  "check.title": "Bir dakika — {title}",
  "check.noscript":
    "Sıraya girmeden önce bu sayfa bir betik değil, bir insan olduğunuzu kontrol eder. Kontrol için JavaScript gerekir: lütfen açın ve sayfayı yeniden yükleyin.",
  "check.checking": "Bir betik değil, bir insan olduğunuz kontrol ediliyor…",
  "check.progress":
    "Bir betik değil, bir insan olduğunuz kontrol ediliyor… yaklaşık {percent} tamamlandı.",
  "check.done": "Kontrol tamamlandı. Sıraya giriliyor…",
  "check.doneResume": "Kontrol tamamlandı. Yeriniz buraya taşınıyor…",
  "check.again": "Bir kontrol daha…",
  "check.failed":
    "Kontrol başarısız oldu ({reason}). Yeniden denemek için sayfayı yeniden yükleyin.",
  "check.reload": "Yeniden yükle",
  "check.progressLabel": "Kontrol ilerlemesi",
  "check.errCookies":
    "tarayıcı bu çerçevede bekleme odasının çerezini saklamıyor; bekleme odasını kendi penceresinde açın",
  "check.errWidget": "Turnstile kontrolü yüklenemedi",
  "check.errStatus": "bekleme odası {status} yanıtını verdi",
  "notice.badRequest": "Hatalı istek",
  "notice.badQueueLink": "Bu bağlantıdaki sıra adı geçerli değil.",
  "notice.badQueueForm": "Bu formdaki sıra adı geçerli değil.",
  "notice.denied": "Erişim reddedildi",
  "notice.deniedText": "Bu bekleme odasına katılamazsınız.",
  "notice.badLink": "Bu bağlantıda bir sorun var",
  "notice.badLinkText":
    "Bekleme odasına giden bu bağlantı kullanılamıyor. Siteye dönün ve bağlantısını yeniden izleyin.",
  "notice.moment": "Lütfen biraz bekleyin",
  "notice.momentText":
    "Bekleme odası şu anda yanıt veremedi. Bu sayfa {seconds} sonra kendiliğinden yeniden deneyecek.",
  "notice.geo": "Ülkenizde kullanılamıyor",
  "notice.geoText": "Bu bekleme odası ülkenizde kullanılamıyor.",
  "notice.code": "Bu öncelik kodu kullanılamıyor",
  "notice.codeText":
    "Bu sıra için geçerli değil, süresi doldu ya da kullanıldı. Sıraya kodsuz da girebilirsiniz.",
  "notice.notFound": "Bulunamadı",
  "notice.visitEnded": "Ziyaretiniz sona erdi",
  "notice.visitEndedText":
    "Ziyaretiniz için teşekkürler: site ziyaretinizi sonlandırdı. Yeniden girmek için sıraya tekrar katılın (en sona).",
  "notice.notFoundText": "Burada bir bekleme odası yok.",
  "notice.notOpen": "Henüz açılmadı",
  "notice.notOpenText":
    "Bu bekleme odası henüz açılmadı. Bu sayfa her dakika kendiliğinden yeniden kontrol eder.",
  "notice.rate": "Ağınızdan çok fazla yeni yer alındı",
  "notice.rateText":
    "Son bir dakikada ağınızdan birçok kişi bu bekleme odasına katıldı. Bu sayfa {seconds} sonra kendiliğinden yeniden deneyecek.",
  "notice.closed": "Şu anda kapalı",
  "notice.closedText":
    "Bu bekleme odası şu anda kapalı. Lütfen daha sonra tekrar gelin; bu sayfa kendiliğinden yeniden kontrol eder.",
  "notice.full": "Bekleme odası dolu",
  "notice.fullText":
    "Şu anda çok fazla kişi bekliyor. Bu sayfa {seconds} sonra kendiliğinden yeniden deneyecek.",
  "enqueue.unavailable": "Şu anda kullanılamıyor",
  "enqueue.unavailableText": "Bu bekleme odası şu anda bağlantılarını kontrol edemiyor.",
  "enqueue.useLink": "Lütfen sitenin bağlantısını kullanın",
  "enqueue.required":
    "Bu bekleme odasına sizi buraya gönderen sitenin kişisel bağlantısıyla katılınır. Siteye dönün ve sıraya giden bağlantısını izleyin.",
  "enqueue.invalid":
    "Sizi buraya getiren bağlantı geçerli değil (süresi dolmuş olabilir). Siteye dönün ve sıraya giden bağlantısını yeniden izleyin.",
  "how.title": "Bu bekleme odası nasıl çalışır",
  "how.intro":
    "Sitenin aynı anda hizmet verebileceğinden fazla kişi geldiğinde, hata sayfası yerine sırada bir yer alırsınız. Site insanları sabit bir hızla içeri alır.",
  "how.keepOpen":
    "Bekleme sayfasını açık tutun: kendiliğinden bağlanır ve sıra size geldiğinde ilerler. Uzun süre kapatırsanız yerinizi kaybedersiniz.",
  "how.reload":
    "Sayfayı yeniden yüklemek veya yeniden açmak yerinizi korur (bir çerez hatırlar); yeni bir yer sizi yalnızca en sona koyar.",
  "how.random":
    "Bazı satışlar, ilk gelen ilk alır yerine kişileri rastgele seçer; sayfa hangisinin geçerli olduğunu söyler.",
  "how.turn":
    "Sıra size geldiğinde siteye yönlendirilirsiniz. Sayfa onay isterse, gösterilen süre içinde onaylayın; yoksa yer sıradaki kişiye geçer.",
  "how.privacy":
    "Yalnızca sıranın ihtiyaç duyduğu saklanır: bir çerezde rastgele bir kimlik ile yerleri adil paylaştırmak ve kötüye kullanımı önlemek için adresiniz ve ülkeniz.",
  "how.back": "Sıraya dönmek için tarayıcınızın Geri düğmesini kullanın.",
  "draw.title": "Bir açılış çekilişini kontrol et",
  "draw.intro":
    "Bu sayfa {queue} sırasının çekilişini tarayıcınızda yeniden hesaplar: tohumun özeti, ön sıra açıldığında yayımlanan taahhüde eşit olmalı, listenin özeti yayımlanan liste özetine eşit olmalı ve sıralama tohum ile listeden çıkmalıdır. Burada hiçbir şey sunucunun kendi yanıtına güvenmez.",
  "draw.fetch": "Yayımlanan çekilişi kontrol et",
  "draw.paste": "Ya da kaydettiğiniz bir kaydı yapıştırın",
  "draw.recordLabel": "Çekiliş kaydı (JSON)",
  "draw.checkRecord": "Bu kaydı kontrol et",
  "draw.arrivalLabel": "Geliş numaranız",
  "draw.noscript": "Bu kontrol tarayıcıda çalışır: JavaScript gerektirir.",
  "draw.checking": "Kontrol ediliyor…",
  "draw.ok": "Çekiliş doğru: listede {count} kişi, sıralama yeniden hesaplandı.",
  "draw.bad": "Çekiliş doğru DEĞİL (aşağıya bakın).",
  "draw.notInList": "{arrival} geliş numarası listede yok.",
  "draw.placed": "{arrival} geliş numarasına {total} içinden {place}. sıra çıktı.",
  "draw.serverSaid": "Sunucu {status} yanıtını verdi.",
  "draw.fetchFailed": "Çekiliş kaydı alınamadı.",
  "draw.notJson": "Bu bir JSON çekiliş kaydı değil.",
  "gateway.title": "Geçici olarak kullanılamıyor",
  "gateway.heading": "Bu siteye şu anda ulaşılamıyor",
  "gateway.text": "Erişiminiz geçerliliğini koruyor: lütfen birazdan yeniden deneyin.",
  "gateway.retry": "Yeniden dene",
  "draw.lineScheme": "şema {scheme} (kayıtta {said} yazıyor)",
  "draw.lineNotDone": "kayıtta henüz tohum, liste ve sıralama yok: çekiliş yapılmadı",
  "draw.lineSeed": "tohum küçük harfli onaltılık 32 bayttır",
  "draw.lineCommitment": "SHA-256(tohum), {at} tarihinde yayımlanan {commitment} taahhüdüne eşit",
  "draw.lineList": "{count} geliş numarasından oluşan listenin SHA-256 özeti listHash",
  "draw.lineCount": "count liste uzunluğuyla eşleşiyor",
  "draw.lineOrder": "tohum ve listeden yeniden hesaplanan sıralama yayımlanan sıralamaya eşit",
};
