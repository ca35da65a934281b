use undercooked::bots::BotTeam;
use undercooked::log::Record;
use undercooked::round::Round;
#[test]
#[ignore]
fn debug() {
    let src = undercooked::levels::find(
        std::path::Path::new("levels"),
        &std::env::var("LVL").unwrap_or("01_first_kitchen".into()),
    )
    .unwrap();
    let bots: u8 = std::env::var("BOTS").unwrap_or("2".into()).parse().unwrap();
    let header = undercooked::simulate::bot_header(&src, 1, bots, 20);
    let (mut round, _) = Round::start(header, Vec::new()).unwrap();
    let seats: Vec<u8> = (0..bots).collect();
    let mut team = BotTeam::new(&src.level, 20, &seats, 1);
    let from: u32 = std::env::var("FROM")
        .unwrap_or("780".into())
        .parse()
        .unwrap();
    while round.fold.state.verdict.is_none() && round.fold.state.tick < from + 60 {
        let view = undercooked::wire::project(&round.fold.state, &round.fold.rules);
        let tick = round.fold.state.tick;
        let ins = team.decide(&view);
        if tick >= from && tick < from + 12 {
            println!("t{tick} goals {:?} {:?}", team.goals(), team.debug());
            for p in &view.p {
                println!("   {:?}", p);
            }
            println!("   ins {:?}", ins);
        }
        for i in ins {
            round
                .append(Record::Input {
                    tick,
                    seat: i.seat,
                    seq: i.seq,
                    mv: i.mv,
                    act: i.act,
                    face: i.face,
                })
                .unwrap();
        }
        round.close_tick().unwrap();
    }
}
