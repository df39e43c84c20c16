/** Portuguese (Brazil). */
import type { Catalogue } from "./en.ts";

export const ptBR: Catalogue = {
  "doc.footer": "Sala de espera da Tollgate",
  "doc.how": "Como funciona",
  "doc.language": "Idioma",
  "doc.languageNow": "Idioma: {name}",
  "page.title": "Você está na fila",
  "page.message": "Obrigado pela paciência. Vamos deixar você entrar assim que houver espaço.",
  "page.turnTitle": "✅ É a sua vez — {title}",
  "page.previewTitle": "Prévia — {title}",
  "page.moveTitle": "Mover seu lugar para cá? — {title}",
  "page.movedTitle": "Seu lugar foi movido — {title}",
  "page.endedTitle": "Seu lugar terminou — {title}",
  "live.expired": "Sua vez passou: o lugar ficou reservado para você, mas você não entrou a tempo.",
  "live.ended":
    "Seu lugar na fila terminou: você saiu, ele foi removido por falta de resposta ou sua vez passou.",
  "live.full": "A sala de espera está cheia agora. Esta página tenta de novo sozinha em instantes.",
  "live.closed": "Esta sala de espera não está disponível.",
  "live.cookies":
    "Esta página não consegue guardar seu lugar aqui, porque o navegador não mantém o cookie da sala de espera neste quadro. Abra a sala de espera em uma janela própria para esperar.",
  "live.hold": "É a sua vez! Seu lugar está reservado por {time}: toque em “Entrar agora”.",
  "live.admitted": "É a sua vez! Levando você para dentro…",
  "live.prequeue": "Você está na pré-fila. Esta página verifica por você e avança sozinha.",
  "live.lottery": "Você está no sorteio. Esta página verifica por você e avança sozinha.",
  "live.position":
    "Você é o número {position} na fila. Esta página verifica por você e avança sozinha.",
  "live.positionOf":
    "Você é o número {position} de {waiting} na fila. Esta página verifica por você e avança sozinha.",
  "live.positionAbout":
    "Você é mais ou menos o número {position} na fila. Esta página verifica por você e avança sozinha.",
  "wait.joinAgain": "Entrar na fila de novo",
  "wait.ownWindow": "Abrir a sala de espera em uma janela própria",
  "wait.enterNow": "Entrar agora",
  "wait.continue": "Continuar",
  "wait.heldFor": "Seu lugar está reservado por {countdown}.",
  "wait.notifyMe": "Avise-me",
  "wait.notifyOn": "Vamos avisar você quando for a sua vez.",
  "wait.notifyBlocked":
    "As notificações estão bloqueadas para este site, então não podemos avisar você. Mantenha esta página aberta: ela avança sozinha.",
  "wait.arrivalWas": "Seu número de chegada na pré-fila era {arrival}.",
  "wait.checkDraw": "Conferir o sorteio de abertura",
  "wait.howYouGetIn": "Como você entra",
  "wait.prequeueWords":
    "Na abertura, todos na pré-fila recebem um lugar sorteado na fila, à frente de quem chegar depois. O momento em que você entrou na pré-fila não faz diferença.",
  "wait.lotteryWords":
    "Cada vez que um lugar se abre, um sorteio escolhe quem entra entre todos que estão esperando naquele momento. Não há lugar na fila: chegar antes ou depois não faz diferença.",
  "wait.arrivalNumber":
    "Seu número de chegada: {arrival} (guarde-o para encontrar seu lugar no sorteio publicado)",
  "wait.commitment":
    "O segredo do sorteio foi definido antes de qualquer pessoa entrar; sua impressão digital é {fingerprint}.",
  "wait.howToCheck": "Como conferir o sorteio",
  "wait.openingProgress": "Aguardando o sorteio de abertura",
  "wait.prequeueEta": "Espera prevista após a abertura, para um lugar sorteado: {wait}",
  "wait.odds": "{waiting} esperando · sua chance no próximo sorteio: {chance}",
  "wait.drawProgress": "Aguardando o sorteio",
  "wait.lotteryEta":
    "No ritmo atual, metade de quem está esperando agora entra em até {half}, e nove em cada dez em até {most}.",
  "wait.placeLabel": "Seu lugar na fila",
  "wait.place": "Nº {position}",
  "wait.placeOf": "Nº {position} de {waiting}",
  "wait.placeAbout": "Cerca de Nº {position}",
  "wait.codeOffer": "Tem um código de prioridade?",
  "wait.codeLabel": "Código de prioridade",
  "wait.codeUse": "Usar código",
  "wait.inLane": "Fila prioritária: {lane}",
  "wait.lineProgress": "Progresso na fila",
  "wait.eta": "Espera estimada: {wait}",
  "time.unknown": "desconhecida",
  "time.underMinute": "menos de um minuto",
  "time.about": "cerca de {duration}",
  "time.overDay": "mais de um dia",
  "time.under": "menos de {value}",
  "notify.title": "É a sua vez",
  "resume.offer": "Continuar em outro dispositivo",
  "resume.offerHint":
    "Abra esta sala de espera no celular ou em outro computador e mantenha seu lugar.",
  "resume.showCode": "Mostrar um código",
  "resume.codeLabel": "Seu código",
  "resume.codeHint":
    "No outro dispositivo, leia o QR code, abra o link ou digite o código em “{offer}” na página desta sala de espera. O código vale uma vez; depois seu lugar passa para lá.",
  "resume.link": "Link: {link}",
  "resume.copyLink": "Copiar link",
  "resume.copied": "Copiado",
  "resume.qrLabel": "QR code que abre seu lugar em outro dispositivo",
  "resume.moved":
    "Seu lugar passou para outro dispositivo. Para pegá-lo de volta, digite um código mostrado lá.",
  "resume.haveCode": "Tem um código de outro dispositivo?",
  "resume.enterCode": "Digitar o código",
  "resume.takePlace": "Continuar aqui",
  "resume.confirmMove":
    "Trazer seu lugar na fila para este dispositivo? O outro dispositivo vai perdê-lo.",
  "resume.badCode":
    "Esse código não funciona: foi digitado errado, já foi usado ou o lugar dele terminou.",
  "resume.tooMany": "Códigos errados demais. Aguarde alguns minutos e tente de novo.",
  "resume.mailOffer": "Me avise por e-mail quando for a minha vez",
  "resume.mailLabel": "Seu endereço de e-mail",
  "resume.mailSave": "Avisar por e-mail",
  "resume.mailSaved":
    "Vamos mandar um e-mail quando for a sua vez. O endereço é apagado assim que o e-mail é enviado ou seu lugar termina.",
  "resume.mailBad": "Isso não parece um endereço de e-mail.",
  "resume.mailError": "Não foi possível salvar o endereço agora. Tente de novo em instantes.",
  "resume.mailCancel": "Não me mande e-mail",
  "resume.holdWarning":
    "Seu lugar reservado termina em breve. Precisa de mais tempo? Toque em “{button}”.",
  "resume.moreTime": "Preciso de mais tempo",
  "resume.moreTimeAdded": "Mais tempo adicionado.",
  "resume.noMoreTime": "Não é possível adicionar mais tempo.",
  "mail.subjectTurn": "É a sua vez: {title}",
  "mail.subjectNear": "Quase a sua vez: {title}",
  "mail.leadTurn": "É a sua vez: você já pode entrar.",
  "mail.leadNear": "Você está entre os {count} primeiros da fila.",
  "mail.linkIntro":
    "Abra este link neste dispositivo para continuar na sala de espera (seu lugar passa para cá):",
  "mail.code": "Ou digite este código na página da sala de espera: {code}",
  "mail.ignore": "Se você não pediu este e-mail, pode ignorá-lo.",
  "check.title": "Um momento — {title}",
  "check.noscript":
    "Antes de você entrar na fila, esta página verifica se você é uma pessoa e não um script. A verificação precisa de JavaScript: ative-o e recarregue esta página.",
  "check.checking": "Verificando se você é uma pessoa e não um script…",
  "check.progress":
    "Verificando se você é uma pessoa e não um script… cerca de {percent} concluído.",
  "check.done": "Verificação concluída. Entrando na fila…",
  "check.doneResume": "Verificação concluída. Trazendo seu lugar para cá…",
  "check.again": "Mais uma verificação…",
  "check.failed":
    "A verificação não funcionou ({reason}). Recarregue a página para tentar de novo.",
  "check.reload": "Recarregar",
  "check.progressLabel": "Progresso da verificação",
  "check.errCookies":
    "o navegador não mantém o cookie da sala de espera neste quadro; abra a sala de espera em uma janela própria",
  "check.errWidget": "não foi possível carregar a verificação do Turnstile",
  "check.errStatus": "a sala de espera respondeu {status}",
  "notice.badRequest": "Solicitação inválida",
  "notice.badQueueLink": "O nome da fila neste link não é válido.",
  "notice.badQueueForm": "O nome da fila neste formulário não é válido.",
  "notice.denied": "Acesso negado",
  "notice.deniedText": "Você não pode entrar nesta sala de espera.",
  "notice.badLink": "Há algo errado com este link",
  "notice.badLinkText":
    "Este link para a sala de espera não pode ser usado. Volte ao site e siga o link dele de novo.",
  "notice.moment": "Aguarde um momento",
  "notice.momentText":
    "A sala de espera não conseguiu responder agora. Esta página tenta de novo sozinha em {seconds}.",
  "notice.geo": "Não disponível no seu país",
  "notice.geoText": "Esta sala de espera não está disponível no seu país.",
  "notice.code": "Este código de prioridade não pode ser usado",
  "notice.codeText":
    "Ele não vale para esta fila, expirou ou já foi usado. Você ainda pode entrar na fila sem ele.",
  "notice.notFound": "Não encontrada",
  "notice.visitEnded": "Sua visita terminou",
  "notice.visitEndedText":
    "Obrigado pela visita: o site a encerrou. Para entrar de novo, entre na fila novamente (no final).",
  "notice.notFoundText": "Não há nenhuma sala de espera aqui.",
  "notice.notOpen": "Ainda não abriu",
  "notice.notOpenText":
    "Esta sala de espera ainda não abriu. Esta página verifica de novo sozinha a cada minuto.",
  "notice.rate": "Muitos lugares novos vindos da sua rede",
  "notice.rateText":
    "Muitas pessoas da sua rede entraram nesta sala de espera no último minuto. Esta página tenta de novo sozinha em {seconds}.",
  "notice.closed": "Fechado no momento",
  "notice.closedText":
    "Esta sala de espera está fechada no momento. Volte mais tarde; esta página verifica de novo sozinha.",
  "notice.full": "A sala de espera está cheia",
  "notice.fullText":
    "Há muitas pessoas esperando agora. Esta página tenta de novo sozinha em {seconds}.",
  "enqueue.unavailable": "Indisponível no momento",
  "enqueue.unavailableText": "Esta sala de espera não consegue verificar seus links no momento.",
  "enqueue.useLink": "Use o link do site",
  "enqueue.required":
    "Esta sala de espera é acessada por um link pessoal do site que enviou você até aqui. Volte ao site e siga o link dele para a fila.",
  "enqueue.invalid":
    "O link que trouxe você até aqui não é válido (pode ter expirado). Volte ao site e siga de novo o link dele para a fila.",
  "how.title": "Como esta sala de espera funciona",
  "how.intro":
    "Quando chegam mais pessoas do que o site consegue atender de uma vez, você recebe um lugar na fila em vez de uma página de erro. O site deixa as pessoas entrarem em ritmo constante.",
  "how.keepOpen":
    "Mantenha a página de espera aberta: ela se comunica sozinha e avança quando for a sua vez. Fechá-la por muito tempo faz você perder o lugar.",
  "how.reload":
    "Recarregar ou abrir a página de novo mantém seu lugar (um cookie se lembra dele); um lugar novo só colocaria você no fim.",
  "how.random":
    "Algumas vendas sorteiam as pessoas em vez de seguir a ordem de chegada; a página diz qual vale.",
  "how.turn":
    "Quando for a sua vez, você será levado ao site. Se a página pedir confirmação, confirme dentro do tempo mostrado, ou o lugar passa para a próxima pessoa.",
  "how.privacy":
    "Só guardamos o que a fila precisa: um identificador aleatório em um cookie, e seu endereço e país para distribuir os lugares de forma justa e evitar abusos.",
  "how.back": "Para voltar à fila, use o botão Voltar do navegador.",
  "draw.title": "Conferir um sorteio de abertura",
  "draw.intro":
    "Esta página recalcula no seu navegador o sorteio da fila {queue}: a semente precisa corresponder ao compromisso publicado na abertura da pré-fila, a lista precisa corresponder ao hash de lista publicado e a ordem precisa decorrer da semente e da lista. Nada aqui confia na resposta do servidor.",
  "draw.fetch": "Conferir o sorteio publicado",
  "draw.paste": "Ou colar um registro salvo",
  "draw.recordLabel": "Registro do sorteio (JSON)",
  "draw.checkRecord": "Conferir este registro",
  "draw.arrivalLabel": "Seu número de chegada",
  "draw.noscript": "Esta verificação roda no navegador: ela precisa de JavaScript.",
  "draw.checking": "Verificando…",
  "draw.ok": "O sorteio confere: {count} na lista, ordem recalculada.",
  "draw.bad": "O sorteio NÃO confere (veja abaixo).",
  "draw.notInList": "O número de chegada {arrival} não está na lista.",
  "draw.placed": "O número de chegada {arrival} foi sorteado para o lugar {place} de {total}.",
  "draw.serverSaid": "O servidor respondeu {status}.",
  "draw.fetchFailed": "Não foi possível obter o registro do sorteio.",
  "draw.notJson": "Isso não é um registro de sorteio em JSON.",
  "gateway.title": "Temporariamente indisponível",
  "gateway.heading": "Este site não está acessível agora",
  "gateway.text": "Seu acesso continua válido: tente de novo em instantes.",
  "gateway.retry": "Tentar de novo",
  "draw.lineScheme": "o esquema é {scheme} (o registro diz {said})",
  "draw.lineNotDone": "o registro ainda não tem semente, lista e ordem: o sorteio não foi feito",
  "draw.lineSeed": "a semente tem 32 bytes em hexadecimal minúsculo",
  "draw.lineCommitment": "SHA-256(semente) é igual ao compromisso {commitment} publicado em {at}",
  "draw.lineList": "o SHA-256 da lista de {count} números de chegada é listHash",
  "draw.lineCount": "count corresponde ao tamanho da lista",
  "draw.lineOrder": "a ordem recalculada a partir da semente e da lista é igual à ordem publicada",
};
