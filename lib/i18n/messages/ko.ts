/** Korean. */
import type { Catalogue } from "./en.ts";

export const ko: Catalogue = {
  "doc.footer": "Tollgate 대기실",
  "doc.how": "이용 방법",
  "doc.language": "언어",
  "doc.languageNow": "언어: {name}",
  "page.title": "대기열에 들어왔습니다",
  "page.message": "기다려 주셔서 감사합니다. 자리가 나는 대로 입장시켜 드리겠습니다.",
  "page.turnTitle": "✅ 입장 차례입니다 — {title}",
  "page.previewTitle": "미리 보기 — {title}",
  "page.moveTitle": "순서를 이 기기로 옮길까요? — {title}",
  "page.movedTitle": "순서가 다른 기기로 옮겨졌습니다 — {title}",
  "page.endedTitle": "순서가 종료되었습니다 — {title}",
  "live.expired": "차례가 지났습니다. 자리를 맡아 두었지만 시간 안에 입장하지 않으셨습니다.",
  "live.ended":
    "대기열의 자리가 종료되었습니다. 대기열을 떠났거나, 응답이 없어 삭제되었거나, 차례가 지났습니다.",
  "live.full": "지금은 대기실이 가득 찼습니다. 잠시 후 이 페이지가 자동으로 다시 시도합니다.",
  "live.closed": "이 대기실은 이용할 수 없습니다.",
  "live.cookies":
    "이 프레임에서는 브라우저가 대기실 쿠키를 저장하지 않아 이 페이지에서 순서를 유지할 수 없습니다. 대기실을 별도 창에서 열어 기다려 주세요.",
  "live.hold": "입장 차례입니다! 자리가 {time} 동안 유지됩니다. '지금 입장'을 누르세요.",
  "live.admitted": "입장 차례입니다! 입장 중입니다…",
  "live.prequeue":
    "사전 대기열에 있습니다. 이 페이지가 대신 확인하고 차례가 되면 자동으로 넘어갑니다.",
  "live.lottery":
    "추첨에 참여 중입니다. 이 페이지가 대신 확인하고 차례가 되면 자동으로 넘어갑니다.",
  "live.position":
    "대기 순서는 {position}번입니다. 이 페이지가 대신 확인하고 차례가 되면 자동으로 넘어갑니다.",
  "live.positionOf":
    "{waiting}명 중 {position}번째입니다. 이 페이지가 대신 확인하고 차례가 되면 자동으로 넘어갑니다.",
  "live.positionAbout":
    "대기 순서는 약 {position}번입니다. 이 페이지가 대신 확인하고 차례가 되면 자동으로 넘어갑니다.",
  "wait.joinAgain": "다시 줄 서기",
  "wait.ownWindow": "대기실을 별도 창에서 열기",
  "wait.enterNow": "지금 입장",
  "wait.continue": "계속",
  "wait.heldFor": "자리가 {countdown} 동안 유지됩니다.",
  "wait.notifyMe": "알림 받기",
  "wait.notifyOn": "차례가 되면 알려 드리겠습니다.",
  "wait.notifyBlocked":
    "이 사이트의 알림이 차단되어 알려 드릴 수 없습니다. 이 페이지를 열어 두세요. 자동으로 넘어갑니다.",
  "wait.arrivalWas": "사전 대기열 도착 번호는 {arrival}였습니다.",
  "wait.checkDraw": "오픈 추첨 확인하기",
  "wait.howYouGetIn": "입장 방식",
  "wait.prequeueWords":
    "오픈 시점에 사전 대기열의 모든 사람이 무작위 순서를 받으며, 나중에 온 사람보다 앞에 섭니다. 사전 대기열에 언제 들어왔는지는 상관없습니다.",
  "wait.lotteryWords":
    "자리가 날 때마다 그 순간 기다리는 모든 사람 중에서 무작위 추첨으로 입장할 사람을 정합니다. 대기 순서는 없으며, 일찍 오든 늦게 오든 차이가 없습니다.",
  "wait.arrivalNumber":
    "도착 번호: {arrival} (공개된 추첨에서 내 순서를 찾을 수 있도록 보관해 두세요)",
  "wait.commitment":
    "추첨의 비밀 값은 누군가 참여하기 전에 정해졌습니다. 지문은 {fingerprint}입니다.",
  "wait.howToCheck": "추첨 확인 방법",
  "wait.openingProgress": "오픈 추첨을 기다리는 중",
  "wait.prequeueEta": "오픈 후 무작위 순서의 예상 대기 시간: {wait}",
  "wait.odds": "{waiting}명 대기 중 · 다음 추첨 당첨 확률: {chance}",
  "wait.drawProgress": "추첨을 기다리는 중",
  "wait.lotteryEta":
    "현재 속도라면 지금 기다리는 사람의 절반은 {half} 안에, 열 명 중 아홉 명은 {most} 안에 입장합니다.",
  "wait.placeLabel": "대기 순서",
  "wait.place": "{position}번",
  "wait.placeOf": "{waiting}명 중 {position}번",
  "wait.placeAbout": "약 {position}번",
  "wait.codeOffer": "우선 코드가 있나요?",
  "wait.codeLabel": "우선 코드",
  "wait.codeUse": "코드 사용",
  "wait.inLane": "우선 줄: {lane}",
  "wait.lineProgress": "대기열 진행 상황",
  "wait.eta": "예상 대기 시간: {wait}",
  "time.unknown": "알 수 없음",
  "time.underMinute": "1분 미만",
  "time.about": "약 {duration}",
  "time.overDay": "하루 이상",
  "time.under": "{value} 미만",
  "notify.title": "입장 차례입니다",
  "resume.offer": "다른 기기에서 계속하기",
  "resume.offerHint": "휴대전화나 다른 컴퓨터에서 이 대기실을 열고 순서를 그대로 유지하세요.",
  "resume.showCode": "코드 보기",
  "resume.codeLabel": "내 코드",
  "resume.codeHint":
    "다른 기기에서 QR 코드를 스캔하거나, 링크를 열거나, 이 대기실 페이지의 '{offer}'에서 코드를 입력하세요. 코드는 한 번만 쓸 수 있으며, 쓰면 순서가 그 기기로 옮겨집니다.",
  "resume.link": "링크: {link}",
  "resume.copyLink": "링크 복사",
  "resume.copied": "복사됨",
  "resume.qrLabel": "다른 기기에서 내 순서를 여는 QR 코드",
  "resume.moved":
    "순서가 다른 기기로 옮겨졌습니다. 다시 가져오려면 그 기기에 표시된 코드를 입력하세요.",
  "resume.haveCode": "다른 기기에서 받은 코드가 있나요?",
  "resume.enterCode": "코드 입력",
  "resume.takePlace": "여기서 계속하기",
  "resume.confirmMove": "대기 순서를 이 기기로 옮길까요? 다른 기기에서는 순서가 사라집니다.",
  "resume.badCode":
    "이 코드는 사용할 수 없습니다. 잘못 입력했거나, 이미 사용했거나, 해당 순서가 끝났습니다.",
  "resume.tooMany": "잘못된 코드를 너무 많이 입력했습니다. 몇 분 후에 다시 시도하세요.",
  "resume.mailOffer": "차례가 되면 이메일 받기",
  "resume.mailLabel": "이메일 주소",
  "resume.mailSave": "이메일로 알림 받기",
  "resume.mailSaved":
    "차례가 되면 이메일을 보내 드리겠습니다. 주소는 이메일을 보내거나 순서가 끝나면 삭제됩니다.",
  "resume.mailBad": "이메일 주소 형식이 아닌 것 같습니다.",
  "resume.mailError": "지금은 주소를 저장할 수 없습니다. 잠시 후 다시 시도하세요.",
  "resume.mailCancel": "이메일 받지 않기",
  "resume.holdWarning":
    "맡아 둔 자리가 곧 끝납니다. 시간이 더 필요하면 '{button}' 버튼을 누르세요.",
  "resume.moreTime": "시간 연장하기",
  "resume.moreTimeAdded": "시간이 추가되었습니다.",
  "resume.noMoreTime": "더 이상 시간을 추가할 수 없습니다.",
  "mail.subjectTurn": "입장 차례입니다: {title}",
  "mail.subjectNear": "곧 입장 차례입니다: {title}",
  "mail.leadTurn": "입장 차례입니다. 지금 입장할 수 있습니다.",
  "mail.leadNear": "대기열 맨 앞 {count}명 안에 들었습니다.",
  "mail.linkIntro":
    "이 기기에서 아래 링크를 열면 대기실에서 계속할 수 있습니다(순서가 이 기기로 옮겨집니다).",
  "mail.code": "또는 대기실 페이지에서 이 코드를 입력하세요: {code}",
  "mail.ignore": "이 이메일을 요청하지 않았다면 무시하셔도 됩니다.",
  "check.title": "잠시만요 — {title}",
  "check.noscript":
    "줄을 서기 전에 이 페이지는 사용자가 스크립트가 아닌 사람인지 확인합니다. 확인에는 JavaScript가 필요합니다. JavaScript를 켜고 이 페이지를 새로 고침하세요.",
  "check.checking": "스크립트가 아닌 사람인지 확인하는 중…",
  "check.progress": "스크립트가 아닌 사람인지 확인하는 중… 약 {percent} 완료.",
  "check.done": "확인이 끝났습니다. 줄을 서는 중…",
  "check.doneResume": "확인이 끝났습니다. 순서를 이 기기로 옮기는 중…",
  "check.again": "한 번 더 확인하는 중…",
  "check.failed": "확인하지 못했습니다({reason}). 페이지를 새로 고침하여 다시 시도하세요.",
  "check.reload": "새로 고침",
  "check.progressLabel": "확인 진행 상황",
  "check.errCookies":
    "이 프레임에서는 브라우저가 대기실 쿠키를 저장하지 않습니다. 대기실을 별도 창에서 여세요",
  "check.errWidget": "Turnstile 확인을 불러올 수 없습니다",
  "check.errStatus": "대기실 응답: {status}",
  "notice.badRequest": "잘못된 요청",
  "notice.badQueueLink": "이 링크의 대기열 이름이 올바르지 않습니다.",
  "notice.badQueueForm": "이 양식의 대기열 이름이 올바르지 않습니다.",
  "notice.denied": "접근이 거부되었습니다",
  "notice.deniedText": "이 대기실에 참여할 수 없습니다.",
  "notice.badLink": "이 링크에 문제가 있습니다",
  "notice.badLinkText":
    "이 대기실 링크는 사용할 수 없습니다. 사이트로 돌아가 링크를 다시 따라오세요.",
  "notice.moment": "잠시만 기다려 주세요",
  "notice.momentText":
    "대기실이 지금 응답하지 못했습니다. 이 페이지는 {seconds} 후 자동으로 다시 시도합니다.",
  "notice.geo": "이 국가에서는 이용할 수 없습니다",
  "notice.geoText": "이 대기실은 사용자의 국가에서 이용할 수 없습니다.",
  "notice.code": "이 우선 코드는 사용할 수 없습니다",
  "notice.codeText":
    "이 줄에 유효하지 않거나, 만료되었거나, 이미 사용되었습니다. 코드 없이도 줄을 설 수 있습니다.",
  "notice.notFound": "찾을 수 없음",
  "notice.visitEnded": "방문이 종료되었습니다",
  "notice.visitEndedText":
    "방문해 주셔서 감사합니다. 사이트에서 방문을 종료했습니다. 다시 들어가려면 줄에 다시 서 주세요(맨 뒤에 섭니다).",
  "notice.notFoundText": "여기에는 대기실이 없습니다.",
  "notice.notOpen": "아직 열리지 않았습니다",
  "notice.notOpenText":
    "이 대기실은 아직 열리지 않았습니다. 이 페이지는 1분마다 자동으로 다시 확인합니다.",
  "notice.rate": "사용자 네트워크에서 새 자리가 너무 많습니다",
  "notice.rateText":
    "지난 1분 동안 사용자 네트워크에서 많은 사람이 이 대기실에 참여했습니다. 이 페이지는 {seconds} 후 자동으로 다시 시도합니다.",
  "notice.closed": "지금은 닫혀 있습니다",
  "notice.closedText":
    "이 대기실은 지금 닫혀 있습니다. 나중에 다시 와 주세요. 이 페이지가 알아서 다시 확인합니다.",
  "notice.full": "대기실이 가득 찼습니다",
  "notice.fullText":
    "지금 기다리는 사람이 너무 많습니다. 이 페이지는 {seconds} 후 자동으로 다시 시도합니다.",
  "enqueue.unavailable": "지금은 이용할 수 없습니다",
  "enqueue.unavailableText": "이 대기실은 지금 링크를 확인할 수 없습니다.",
  "enqueue.useLink": "사이트의 링크를 이용해 주세요",
  "enqueue.required":
    "이 대기실은 사용자를 이곳으로 보낸 사이트의 개인 링크로 참여합니다. 사이트로 돌아가 대기열 링크를 따라오세요.",
  "enqueue.invalid":
    "이곳으로 온 링크가 올바르지 않습니다(만료되었을 수 있습니다). 사이트로 돌아가 대기열 링크를 다시 따라오세요.",
  "how.title": "이 대기실의 작동 방식",
  "how.intro":
    "사이트가 한 번에 처리할 수 있는 것보다 많은 사람이 오면 오류 페이지 대신 대기열 순서를 받습니다. 사이트는 일정한 속도로 사람들을 입장시킵니다.",
  "how.keepOpen":
    "대기 페이지를 열어 두세요. 자동으로 확인하고 차례가 되면 넘어갑니다. 오래 닫아 두면 순서를 잃습니다.",
  "how.reload":
    "새로 고침하거나 페이지를 다시 열어도 순서는 유지됩니다(쿠키가 기억합니다). 새로 줄을 서면 맨 뒤로 갈 뿐입니다.",
  "how.random":
    "선착순 대신 무작위 추첨으로 입장시키는 판매도 있습니다. 어떤 방식인지는 페이지에 표시됩니다.",
  "how.turn":
    "차례가 되면 사이트로 이동합니다. 페이지에서 확인을 요청하면 표시된 시간 안에 확인하세요. 그렇지 않으면 다음 사람에게 자리가 넘어갑니다.",
  "how.privacy":
    "대기열에 필요한 것만 보관합니다. 쿠키에 담긴 무작위 ID, 그리고 자리를 공정하게 나누고 악용을 막기 위한 주소와 국가입니다.",
  "how.back": "대기열로 돌아가려면 브라우저의 뒤로 버튼을 사용하세요.",
  "draw.title": "오픈 추첨 확인하기",
  "draw.intro":
    "이 페이지는 대기열 {queue}의 추첨을 브라우저에서 다시 계산합니다. 시드의 해시는 사전 대기열이 열릴 때 공개된 약속 값과, 목록의 해시는 공개된 목록 해시와 일치해야 하며, 순서는 시드와 목록에서 나와야 합니다. 이 페이지는 서버의 응답을 그대로 믿지 않습니다.",
  "draw.fetch": "공개된 추첨 확인하기",
  "draw.paste": "또는 저장한 기록 붙여넣기",
  "draw.recordLabel": "추첨 기록(JSON)",
  "draw.checkRecord": "이 기록 확인하기",
  "draw.arrivalLabel": "도착 번호",
  "draw.noscript": "이 확인은 브라우저에서 실행되므로 JavaScript가 필요합니다.",
  "draw.checking": "확인하는 중…",
  "draw.ok": "추첨이 올바릅니다. 목록 {count}건, 순서를 다시 계산했습니다.",
  "draw.bad": "추첨이 올바르지 않습니다(아래 참조).",
  "draw.notInList": "도착 번호 {arrival}은(는) 목록에 없습니다.",
  "draw.placed": "도착 번호 {arrival}은(는) {total}건 중 {place}번째로 추첨되었습니다.",
  "draw.serverSaid": "서버 응답: {status}",
  "draw.fetchFailed": "추첨 기록을 가져올 수 없습니다.",
  "draw.notJson": "JSON 형식의 추첨 기록이 아닙니다.",
  "gateway.title": "일시적으로 이용할 수 없음",
  "gateway.heading": "지금은 이 사이트에 연결할 수 없습니다",
  "gateway.text": "입장 권한은 그대로 유효합니다. 잠시 후 다시 시도해 주세요.",
  "gateway.retry": "다시 시도",
  "draw.lineScheme": "방식은 {scheme}입니다(기록에는 {said})",
  "draw.lineNotDone": "기록에 아직 시드, 목록, 순서가 없습니다. 추첨이 아직 이루어지지 않았습니다",
  "draw.lineSeed": "시드는 소문자 16진수 32바이트입니다",
  "draw.lineCommitment": "SHA-256(시드)가 {at}에 공개된 약속 값 {commitment}과(와) 같습니다",
  "draw.lineList": "도착 번호 {count}개 목록의 SHA-256이 listHash와 같습니다",
  "draw.lineCount": "count가 목록 길이와 일치합니다",
  "draw.lineOrder": "시드와 목록으로 다시 계산한 순서가 공개된 순서와 같습니다",
};
