/** Japanese. */
import type { Catalogue } from "./en.ts";

export const ja: Catalogue = {
  "doc.footer": "Tollgate による待合室",
  "doc.how": "しくみ",
  "doc.language": "言語",
  "doc.languageNow": "言語：{name}",
  "page.title": "順番待ちの列に並んでいます",
  "page.message": "お待たせして申し訳ありません。空きができしだいご案内します。",
  "page.turnTitle": "✅ あなたの番です — {title}",
  "page.previewTitle": "プレビュー — {title}",
  "page.moveTitle": "この端末に順番を移しますか？ — {title}",
  "page.movedTitle": "順番は別の端末に移りました — {title}",
  "page.endedTitle": "順番は終了しました — {title}",
  "live.expired": "順番が過ぎました。枠を確保していましたが、時間内に入場されませんでした。",
  "live.ended":
    "列の順番は終了しました。列を離れたか、応答がなかったため削除されたか、順番が過ぎました。",
  "live.full": "待合室は現在満員です。このページはまもなく自動で再試行します。",
  "live.closed": "この待合室はご利用いただけません。",
  "live.cookies":
    "このフレームではブラウザーが待合室の Cookie を保存しないため、このページでは順番を保持できません。待合室を別のウィンドウで開いてお待ちください。",
  "live.hold": "あなたの番です！枠は {time} 確保されています。「今すぐ入場」を押してください。",
  "live.admitted": "あなたの番です！ご案内しています…",
  "live.prequeue": "事前受付の列にいます。このページが自動で確認し、順番が来たら先へ進みます。",
  "live.lottery": "抽選に参加しています。このページが自動で確認し、順番が来たら先へ進みます。",
  "live.position":
    "あなたは列の {position} 番目です。このページが自動で確認し、順番が来たら先へ進みます。",
  "live.positionOf":
    "あなたは {waiting} 人中 {position} 番目です。このページが自動で確認し、順番が来たら先へ進みます。",
  "live.positionAbout":
    "あなたは列のおよそ {position} 番目です。このページが自動で確認し、順番が来たら先へ進みます。",
  "wait.joinAgain": "もう一度列に並ぶ",
  "wait.ownWindow": "待合室を別のウィンドウで開く",
  "wait.enterNow": "今すぐ入場",
  "wait.continue": "続ける",
  "wait.heldFor": "枠は残り {countdown} 確保されています。",
  "wait.notifyMe": "通知を受け取る",
  "wait.notifyOn": "順番が来たら通知します。",
  "wait.notifyBlocked":
    "このサイトの通知はブロックされているため、お知らせできません。このページを開いたままにしてください。自動で先へ進みます。",
  "wait.arrivalWas": "事前受付での到着番号は {arrival} でした。",
  "wait.checkDraw": "開始時の抽選を確認する",
  "wait.howYouGetIn": "入場のしかた",
  "wait.prequeueWords":
    "開始時に、事前受付の全員に列のランダムな順番が割り当てられ、後から来た人より前に並びます。事前受付に加わった時刻は関係ありません。",
  "wait.lotteryWords":
    "枠が空くたびに、その時点で待っている全員の中から抽選で入場者が選ばれます。列の順番はなく、早く来ても遅く来ても変わりません。",
  "wait.arrivalNumber":
    "あなたの到着番号：{arrival}（公開される抽選結果で順番を確かめるために控えておいてください）",
  "wait.commitment":
    "抽選の秘密値は誰かが参加する前に確定しています。そのフィンガープリントは {fingerprint} です。",
  "wait.howToCheck": "抽選の確認方法",
  "wait.openingProgress": "開始時の抽選を待っています",
  "wait.prequeueEta": "開始後の予想待ち時間（ランダムな順番の場合）：{wait}",
  "wait.odds": "{waiting} 人待ち · 次の抽選で当たる確率：{chance}",
  "wait.drawProgress": "抽選を待っています",
  "wait.lotteryEta":
    "現在のペースでは、いま待っている人の半数が {half} 以内に、10 人中 9 人が {most} 以内に入場します。",
  "wait.placeLabel": "列での順番",
  "wait.place": "{position} 番目",
  "wait.placeOf": "{waiting} 人中 {position} 番目",
  "wait.placeAbout": "約 {position} 番目",
  "wait.codeOffer": "優先コードをお持ちですか？",
  "wait.codeLabel": "優先コード",
  "wait.codeUse": "コードを使う",
  "wait.inLane": "優先列: {lane}",
  "wait.lineProgress": "列の進み具合",
  "wait.eta": "予想待ち時間：{wait}",
  "time.unknown": "不明",
  "time.underMinute": "1 分未満",
  "time.about": "約 {duration}",
  "time.overDay": "1 日以上",
  "time.under": "{value} 未満",
  "notify.title": "あなたの番です",
  "resume.offer": "別の端末で続ける",
  "resume.offerHint":
    "スマートフォンや別のパソコンでこの待合室を開き、順番をそのまま引き継げます。",
  "resume.showCode": "コードを表示",
  "resume.codeLabel": "あなたのコード",
  "resume.codeHint":
    "別の端末で QR コードを読み取るか、リンクを開くか、この待合室のページの「{offer}」でコードを入力してください。コードは 1 回だけ使えます。使うと順番はその端末に移ります。",
  "resume.link": "リンク: {link}",
  "resume.copyLink": "リンクをコピー",
  "resume.copied": "コピーしました",
  "resume.qrLabel": "別の端末であなたの順番を開く QR コード",
  "resume.moved":
    "順番は別の端末に移りました。取り戻すには、その端末に表示されたコードを入力してください。",
  "resume.haveCode": "別の端末のコードをお持ちですか？",
  "resume.enterCode": "コードを入力",
  "resume.takePlace": "この端末で続ける",
  "resume.confirmMove": "列での順番をこの端末に移しますか？元の端末からは順番がなくなります。",
  "resume.badCode":
    "このコードは使えません。入力が間違っているか、使用済みか、順番が終了しています。",
  "resume.tooMany": "誤ったコードが多すぎます。数分待ってからもう一度お試しください。",
  "resume.mailOffer": "順番が来たらメールで知らせる",
  "resume.mailLabel": "メールアドレス",
  "resume.mailSave": "メールを受け取る",
  "resume.mailSaved":
    "順番が来たらメールでお知らせします。アドレスはメールの送信後、または順番の終了時に削除されます。",
  "resume.mailBad": "メールアドレスの形式ではないようです。",
  "resume.mailError":
    "現在アドレスを保存できませんでした。しばらくしてからもう一度お試しください。",
  "resume.mailCancel": "メールを受け取らない",
  "resume.holdWarning":
    "確保された枠はまもなく終了します。時間が必要な場合は「{button}」を押してください。",
  "resume.moreTime": "時間を延長する",
  "resume.moreTimeAdded": "時間を延長しました。",
  "resume.noMoreTime": "これ以上延長できません。",
  "mail.subjectTurn": "あなたの番です: {title}",
  "mail.subjectNear": "まもなくあなたの番です: {title}",
  "mail.leadTurn": "あなたの番です。今すぐ入場できます。",
  "mail.leadNear": "列の先頭から {count} 人以内に入りました。",
  "mail.linkIntro":
    "待合室で続けるには、この端末で次のリンクを開いてください（順番はこの端末に移ります）。",
  "mail.code": "または、待合室のページでこのコードを入力してください: {code}",
  "mail.ignore": "このメールに心当たりがない場合は、無視してください。",
  "check.title": "少々お待ちください — {title}",
  "check.noscript":
    "列に並ぶ前に、このページはあなたがスクリプトではなく人であることを確認します。確認には JavaScript が必要です。有効にしてからページを再読み込みしてください。",
  "check.checking": "スクリプトではなく人であることを確認しています…",
  "check.progress": "スクリプトではなく人であることを確認しています… 約 {percent} 完了。",
  "check.done": "確認が完了しました。列に並んでいます…",
  "check.doneResume": "確認が完了しました。順番をこの端末に移しています…",
  "check.again": "もう一度確認しています…",
  "check.failed":
    "確認できませんでした（{reason}）。ページを再読み込みしてもう一度お試しください。",
  "check.reload": "再読み込み",
  "check.progressLabel": "確認の進み具合",
  "check.errCookies":
    "このフレームではブラウザーが待合室の Cookie を保存しません。待合室を別のウィンドウで開いてください",
  "check.errWidget": "Turnstile の確認を読み込めませんでした",
  "check.errStatus": "待合室の応答：{status}",
  "notice.badRequest": "不正なリクエスト",
  "notice.badQueueLink": "このリンクの列の名前が正しくありません。",
  "notice.badQueueForm": "このフォームの列の名前が正しくありません。",
  "notice.denied": "アクセスが拒否されました",
  "notice.deniedText": "この待合室には参加できません。",
  "notice.badLink": "このリンクに問題があります",
  "notice.badLinkText":
    "この待合室へのリンクは使用できません。サイトに戻り、もう一度リンクをたどってください。",
  "notice.moment": "少々お待ちください",
  "notice.momentText":
    "待合室がただいま応答できませんでした。このページは {seconds}後に自動で再試行します。",
  "notice.geo": "お住まいの国ではご利用いただけません",
  "notice.geoText": "この待合室はお住まいの国ではご利用いただけません。",
  "notice.code": "この優先コードは使用できません",
  "notice.codeText": "この列では無効か、期限切れか、使用済みです。コードなしでも列に並べます。",
  "notice.notFound": "見つかりません",
  "notice.visitEnded": "ご訪問は終了しました",
  "notice.visitEndedText":
    "ご訪問ありがとうございました。サイトがご訪問を終了しました。もう一度入るには、列に並び直してください（最後尾になります）。",
  "notice.notFoundText": "ここに待合室はありません。",
  "notice.notOpen": "まだ開始していません",
  "notice.notOpenText":
    "この待合室はまだ開始していません。このページは 1 分ごとに自動で確認します。",
  "notice.rate": "お使いのネットワークからの新規参加が多すぎます",
  "notice.rateText":
    "直前の 1 分間に、お使いのネットワークから多くの人がこの待合室に参加しました。このページは {seconds}後に自動で再試行します。",
  "notice.closed": "現在は受け付けていません",
  "notice.closedText":
    "この待合室は現在受け付けていません。時間をおいてお越しください。このページは自動でもう一度確認します。",
  "notice.full": "待合室は満員です",
  "notice.fullText":
    "現在、待っている人が多すぎます。このページは {seconds}後に自動で再試行します。",
  "enqueue.unavailable": "現在ご利用いただけません",
  "enqueue.unavailableText": "この待合室は現在リンクを確認できません。",
  "enqueue.useLink": "サイトのリンクをご利用ください",
  "enqueue.required":
    "この待合室には、あなたをここへ案内したサイトの個人用リンクから参加します。サイトに戻り、列へのリンクをたどってください。",
  "enqueue.invalid":
    "ここへ来たリンクは無効です（期限切れの可能性があります）。サイトに戻り、もう一度列へのリンクをたどってください。",
  "how.title": "この待合室のしくみ",
  "how.intro":
    "サイトが一度に対応できる以上の人が訪れたとき、エラーページの代わりに列での順番が割り当てられます。サイトは一定のペースで人を案内します。",
  "how.keepOpen":
    "待機ページは開いたままにしてください。自動で確認し、順番が来たら先へ進みます。長時間閉じていると順番は失われます。",
  "how.reload":
    "再読み込みしたりページを開き直したりしても順番はそのままです（Cookie が覚えています）。新しく並び直すと最後尾になるだけです。",
  "how.random": "先着順ではなく抽選で選ぶ販売もあります。どちらかはページに表示されます。",
  "how.turn":
    "順番が来るとサイトへ案内されます。確認を求められた場合は、表示された時間内に確認してください。過ぎると次の人に順番が移ります。",
  "how.privacy":
    "保存するのは列に必要なものだけです。Cookie 内のランダムな ID と、順番を公平に配分し不正を防ぐためのアドレスと国です。",
  "how.back": "列に戻るには、ブラウザーの「戻る」ボタンを使ってください。",
  "draw.title": "開始時の抽選を確認する",
  "draw.intro":
    "このページは列 {queue} の抽選をお使いのブラウザーで再計算します。シードのハッシュは事前受付の開始時に公開されたコミットメントと、リストのハッシュは公開されたリストのハッシュと一致し、順番はシードとリストから導かれる必要があります。ここではサーバー自身の応答を一切信用しません。",
  "draw.fetch": "公開された抽選を確認する",
  "draw.paste": "または保存した記録を貼り付ける",
  "draw.recordLabel": "抽選の記録（JSON）",
  "draw.checkRecord": "この記録を確認する",
  "draw.arrivalLabel": "あなたの到着番号",
  "draw.noscript": "この確認はブラウザーで実行されるため、JavaScript が必要です。",
  "draw.checking": "確認しています…",
  "draw.ok": "抽選は正しく確認できました：リストに {count} 件、順番を再計算しました。",
  "draw.bad": "抽選は正しくありません（下記を参照）。",
  "draw.notInList": "到着番号 {arrival} はリストにありません。",
  "draw.placed": "到着番号 {arrival} は {total} 件中 {place} 番目に抽選されました。",
  "draw.serverSaid": "サーバーの応答：{status}",
  "draw.fetchFailed": "抽選の記録を取得できませんでした。",
  "draw.notJson": "これは JSON 形式の抽選の記録ではありません。",
  "gateway.title": "一時的に利用できません",
  "gateway.heading": "このサイトには現在アクセスできません",
  "gateway.text": "アクセス権は有効なままです。少し待ってからもう一度お試しください。",
  "gateway.retry": "再試行",
  "draw.lineScheme": "方式は {scheme}（記録では {said}）",
  "draw.lineNotDone": "記録にまだシード・リスト・順番がありません。抽選は行われていません",
  "draw.lineSeed": "シードは小文字 16 進数で 32 バイトです",
  "draw.lineCommitment":
    "SHA-256(シード) は {at} に公開されたコミットメント {commitment} と一致します",
  "draw.lineList": "到着番号 {count} 件のリストの SHA-256 は listHash と一致します",
  "draw.lineCount": "count はリストの長さと一致します",
  "draw.lineOrder": "シードとリストから再計算した順番は公開された順番と一致します",
};
